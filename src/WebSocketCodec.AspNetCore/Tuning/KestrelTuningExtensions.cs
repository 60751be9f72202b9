using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace WebSocketCodec.AspNetCore;

/// <summary>Kestrel's socket transport set up for websocket traffic: call <see cref="AddKestrelWebSocketTuning"/> on a
/// host whose Kestrel serves websockets, so that one socket read takes in a large block (64 KiB by default) instead of
/// 4 KiB, and frames up to a block are written whole.</summary>
public static class KestrelTuningExtensions
{
    /// <summary>
    /// Replaces Kestrel's memory pool with one of large pinned blocks (<see cref="WebSocketMemoryPoolFactory"/>): a read
    /// takes in up to <see cref="KestrelWebSocketTuning.BlockSize"/> bytes in one system call instead of 4 KiB, and
    /// frames up to that size are written whole. Idle connections keep holding no buffer: the transport still waits
    /// for data before it rents one. Applies to every Kestrel endpoint of the host (websockets, the fast path and
    /// plain HTTP alike); the factory is also registered as itself, for its counts.
    /// </summary>
    /// <param name="services">The host's services (<c>builder.Services</c>).</param>
    /// <param name="configure">Sets the tuning's options.</param>
    /// <returns><paramref name="services"/>.</returns>
    public static IServiceCollection AddKestrelWebSocketTuning(this IServiceCollection services, Action<KestrelWebSocketTuning>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        var tuning = new KestrelWebSocketTuning();
        configure?.Invoke(tuning);
        var factory = new WebSocketMemoryPoolFactory(tuning.BlockSize, tuning.TrimInterval);
        services.RemoveAll<IMemoryPoolFactory<byte>>();
        services.AddSingleton<IMemoryPoolFactory<byte>>(factory);
        services.AddSingleton(factory);
        services.Configure<SocketTransportOptions>(sockets =>
        {
            sockets.WaitForDataBeforeAllocatingBuffer = true;
            sockets.UnsafePreferInlineScheduling = tuning.InlineScheduling;
        });
        return services;
    }
}
