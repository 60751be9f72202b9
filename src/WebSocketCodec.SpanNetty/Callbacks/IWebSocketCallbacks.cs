using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// The callbacks API on a SpanNetty pipeline: every data frame is handed over as a span of the channel's input buffer
/// (unmasked in place, valid only during the call) on the channel's event loop. Sends made from these callbacks go
/// into the read cycle's output and are flushed once when the cycle ends.
/// </summary>
public interface IWebSocketCallbacks
{
    /// <summary>A data frame (Text, Binary or Continuation) arrived whole. Control frames are answered by the
    /// handler itself.</summary>
    /// <param name="opcode">Text, Binary or Continuation.</param>
    /// <param name="fin">Whether this is the final fragment of its message.</param>
    /// <param name="rsv">The RSV bits (always 0 unless an extension is negotiated).</param>
    /// <param name="payload">The unmasked, validated payload: valid until this call returns.</param>
    void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload);

    /// <summary>The read cycle ended (the channel's <c>ChannelReadComplete</c>): the handler flushes right after.</summary>
    void OnReadComplete()
    {
    }

    /// <summary>The channel's writability changed (its outbound buffer crossed a water mark). Reads pause while it is
    /// not writable if the callbacks answer what they read (see
    /// <see cref="WebSocketChannelOptions.PauseReadsWhenUnwritable"/>).</summary>
    /// <param name="writable">Whether the channel is writable now.</param>
    void OnWritabilityChanged(bool writable)
    {
    }

    /// <summary>The websocket ended; called once, on the event loop.</summary>
    void OnClose(WebSocketCloseInfo info)
    {
    }
}
