using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace WebSocketCodec.AspNetCore;

/// <summary>HTTP/2 flow-control limits that suit websockets: call <see cref="ConfigureHttp2ForWebSockets"/> on a
/// Kestrel that serves websockets over HTTP/2, so that a websocket whose application stops reading cannot stall the
/// others on its connection.</summary>
public static class Http2LimitsExtensions
{
    /// <summary>
    /// Sizes Kestrel's HTTP/2 windows so that a websocket whose application stops reading never stalls the others on
    /// its connection: the connection window is at least the sum of every stream's window, so stalled streams can
    /// hold at most their own windows. Kestrel's defaults (100 streams of 768 KiB, a 1 MiB connection window) let two
    /// stalled websockets stop the whole connection. The price is memory: a connection may buffer up to
    /// <paramref name="maxStreamsPerConnection"/> × <paramref name="streamWindowSize"/> bytes (16 MiB with the
    /// defaults), so lower either for many connections with little traffic.
    /// </summary>
    /// <param name="kestrel">The server options.</param>
    /// <param name="maxStreamsPerConnection">Concurrent streams per connection (websockets and requests).</param>
    /// <param name="streamWindowSize">Bytes a peer may send on one stream beyond what the application has read.</param>
    public static KestrelServerOptions ConfigureHttp2ForWebSockets(
        this KestrelServerOptions kestrel, int maxStreamsPerConnection = 128, int streamWindowSize = 128 * 1024)
    {
        ArgumentNullException.ThrowIfNull(kestrel);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxStreamsPerConnection);
        ArgumentOutOfRangeException.ThrowIfLessThan(streamWindowSize, 65_535);
        long connectionWindow = ((long)maxStreamsPerConnection + 1) * streamWindowSize;
        if (connectionWindow > int.MaxValue)
        {
            throw new ArgumentOutOfRangeException(
                nameof(streamWindowSize), "The streams' windows together must stay below 2 GiB, the largest HTTP/2 window.");
        }

        Http2Limits limits = kestrel.Limits.Http2;
        limits.MaxStreamsPerConnection = maxStreamsPerConnection;
        limits.InitialStreamWindowSize = streamWindowSize;
        limits.InitialConnectionWindowSize = (int)connectionWindow;
        return kestrel;
    }
}
