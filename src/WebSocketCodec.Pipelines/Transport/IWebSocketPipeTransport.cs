using System.IO.Pipelines;

namespace WebSocketCodec.Pipelines;

/// <summary>A websocket's transport as a pipe whose owner can do the two things a pipe cannot, end our direction alone
/// and tear the transport down: implement it over a transport of your own that can, so that a failed connection's Close
/// is not erased by a reset and a peer that stopped reading is cut off. <see cref="StreamTransport"/> implements it
/// over any <see cref="Stream"/>.</summary>
/// <remarks><para>Our direction ends alone and in order while the peer's stays readable (a TCP half-close, an HTTP/2 or
/// HTTP/3 stream's END_STREAM); the transport is torn down at once. A websocket that fails the connection (a protocol
/// violation, a failed listener) ends its output right after the Close that reports it and discards the peer's side
/// until its end (bounded in bytes and time); one whose peer stopped reading even our Close is given up with
/// <see cref="Abort"/>.</para>
/// <para>A plain <see cref="IDuplexPipe"/> (not this interface) has its writer completed to end our direction (that is
/// a pipe's own end of one direction), and a stuck flush is cancelled when the peer is given up. Completing
/// <see cref="IDuplexPipe.Output"/> of this interface's transports does not end the direction: whoever owns the
/// transport decides, at the end, between an orderly end and a reset. <see cref="StreamTransport"/> implements it over
/// any <see cref="Stream"/>.</para></remarks>
public interface IWebSocketPipeTransport : IDuplexPipe
{
    /// <summary>Whether <see cref="CloseOutputAsync"/> ends our direction alone (false: the transport ends both at once,
    /// so a failed connection's output ends with the connection, after the close timeout at worst).</summary>
    bool CanHalfClose { get; }

    /// <summary>Ends our direction in order, after everything written (when <see cref="CanHalfClose"/>); nothing is
    /// written to <see cref="IDuplexPipe.Output"/> afterwards. A transport may complete its output here, or leave that
    /// to its owner where completing it would end both directions (a Kestrel connection's own pipes).</summary>
    /// <returns>Completes when the direction has ended.</returns>
    ValueTask CloseOutputAsync();

    /// <summary>Called right before the flush that carries the last bytes of our direction (the Close of a failed
    /// connection), with how many bytes that flush and any still under way carry, and before
    /// <see cref="CloseOutputAsync"/>: a transport that cannot see when its writes reach the network may take its
    /// bearings here. Does nothing by default.</summary>
    /// <param name="bytes">The bytes appended and not yet taken by the transport.</param>
    void OnOutputEnding(long bytes)
    {
    }

    /// <summary>A count that grows whenever the peer receives bytes written to <see cref="IDuplexPipe.Output"/> (a TCP
    /// socket's bytes acknowledged by the peer), or -1 (the default) when the transport cannot see that: see
    /// <see cref="IWebSocketTransport.AcknowledgedBytes"/>, which it becomes.</summary>
    long AcknowledgedBytes => -1;

    /// <summary>Tears the transport down at once, whatever is under way (Kestrel's <c>ConnectionContext.Abort</c> or
    /// <c>HttpContext.Abort</c>, an HTTP/2 stream's RST_STREAM, a client's socket disposed): a peer that does not read
    /// even our Close is given up. Any thread; may be called more than once.</summary>
    void Abort();
}
