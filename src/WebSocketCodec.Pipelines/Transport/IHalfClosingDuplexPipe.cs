using System.IO.Pipelines;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// A transport that may be able to end our direction alone while the peer's stays readable, in order: a TCP
/// half-close (FIN), an HTTP/2 or HTTP/3 stream's END_STREAM. A websocket that fails the connection (a protocol
/// violation, a failed listener) ends its output right after the Close that reports it and discards the peer's side
/// until its end (bounded in bytes and time); on a transport that cannot (<see cref="CanHalfClose"/> false) the output
/// ends with the connection, after the close timeout at worst. A plain <see cref="IDuplexPipe"/> (not this interface)
/// has its writer completed there: that is a pipe's own end of one direction. Completing <see cref="IDuplexPipe.Output"/>
/// of this interface's transports does not end the direction: whoever owns the transport decides, at the end, between
/// an orderly end and a reset.
/// </summary>
public interface IHalfClosingDuplexPipe : IDuplexPipe
{
    /// <summary>Whether <see cref="CloseOutputAsync"/> ends our direction alone (false: the transport ends both at
    /// once).</summary>
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
}
