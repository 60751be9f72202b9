namespace WebSocketCodec;

/// <summary>The callbacks API of every host: implement it to receive each inbound data frame as a span on the
/// websocket's read loop (a pipe's read loop, a SpanNetty channel's event loop), with no copy; for whole messages use
/// <see cref="WebSocketMessageListener{TSender}"/> (spans on the loop) or <see cref="MessageWebSocket"/> (async, pooled
/// buffers). Control frames are handled by the library: Pings are answered, the close handshake is run, and
/// <see cref="OnClose"/> reports the end.</summary>
public interface IWebSocketFrameListener
{
    /// <summary>One whole data frame. The payload is unmasked, validated (UTF-8 for text, incrementally across
    /// fragments) and lives in the connection's input buffer: valid only until this call returns.</summary>
    /// <param name="opcode">Text or Binary for a message's first frame, Continuation for later fragments.</param>
    /// <param name="fin">Whether this frame ends its message.</param>
    /// <param name="rsv">RSV bits (always zero: no extension is negotiated).</param>
    /// <param name="payload">The payload.</param>
    void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload);

    /// <summary>A Pong arrived (for information: the library already matched its own keep-alive Pings). The payload
    /// is valid only until this call returns. A peer may answer several Pings in a row with one Pong, for the latest
    /// (RFC 6455 §5.5.3).</summary>
    /// <param name="payload">The Pong's application data (at most 125 bytes).</param>
    void OnPong(ReadOnlySpan<byte> payload)
    {
    }

    /// <summary>Called once per read, after every frame of the read was handed over and before the frames the listener
    /// sent are flushed. A listener that queues work elsewhere returns a pending task to pause reading until it
    /// completes (backpressure).</summary>
    /// <param name="cancellationToken">Cancelled when the websocket is aborted.</param>
    ValueTask OnReadCompleteAsync(CancellationToken cancellationToken) => default;

    /// <summary>The websocket's outbound buffer crossed a water mark: <paramref name="writable"/> is false above the
    /// high water mark and true again below the low one.</summary>
    /// <param name="writable">Whether sends are accepted without waiting now.</param>
    void OnWritabilityChanged(bool writable)
    {
    }

    /// <summary>Called once when the websocket has ended, whichever way.</summary>
    /// <param name="info">How it ended.</param>
    void OnClose(WebSocketCloseInfo info)
    {
    }
}
