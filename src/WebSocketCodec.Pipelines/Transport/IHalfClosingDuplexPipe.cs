using System.IO.Pipelines;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// A transport that may be able to end our direction alone while the peer's stays readable, in order (an HTTP/2 or
/// HTTP/3 stream's END_STREAM). A websocket failed by a protocol violation then ends its output right after the Close
/// that reports it, and drains the peer's side afterwards; on other transports (TCP, where the server's close ends
/// both directions) the output ends after the drain. Completing <see cref="IDuplexPipe.Output"/> itself does not end
/// the direction: whoever owns the transport decides, at the end, between an orderly end and a reset.
/// </summary>
public interface IHalfClosingDuplexPipe : IDuplexPipe
{
    /// <summary>Whether <see cref="CloseOutputAsync"/> ends our direction alone (false: the transport ends both at
    /// once, as TCP does when the server closes).</summary>
    bool CanHalfClose { get; }

    /// <summary>Completes <see cref="IDuplexPipe.Output"/> and, when <see cref="CanHalfClose"/>, ends our direction in
    /// order.</summary>
    /// <returns>Completes when the direction has ended.</returns>
    ValueTask CloseOutputAsync();
}
