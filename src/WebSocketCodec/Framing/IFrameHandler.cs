namespace WebSocketCodec;

/// <summary>Receives whole frames from <see cref="FrameDecoder.DecodeFrames{THandler}"/> (and from
/// <see cref="WebSocketSession"/>): implement it when you drive a decoder or a session yourself. A listener of a
/// running websocket implements <see cref="IWebSocketFrameListener"/> instead.</summary>
/// <remarks>Implement it on a <c>struct</c>: the call is then devirtualized and inlined, with no frame object and no
/// allocation.</remarks>
public interface IFrameHandler
{
    /// <summary>One whole, validated frame.</summary>
    /// <param name="opcode">The frame's opcode (Continuation for later fragments).</param>
    /// <param name="fin">Whether the frame ends its message.</param>
    /// <param name="rsv">The RSV bits (non-zero only with a negotiated extension).</param>
    /// <param name="payload">The unmasked payload, in the decoder's input buffer; valid until the call returns.</param>
    /// <returns><see langword="false"/> to stop decoding after this frame (e.g. after a Close).</returns>
    bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload);
}
