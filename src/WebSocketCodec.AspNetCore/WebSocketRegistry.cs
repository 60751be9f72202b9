using System.Collections.Concurrent;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using WebSocketCodec.Http1;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>The websockets open on one endpoint or listener: admitted up to a cap (503 beyond), and closed with 1001
/// on shutdown.</summary>
internal sealed class WebSocketRegistry(int maxOpen)
{
    private readonly ConcurrentDictionary<WebSocketChannel, byte> _open = new();
    private int _admitted; // handshakes under way and websockets open

    /// <summary>The answer to a handshake beyond the cap.</summary>
    public static HandshakeFailure Full { get; } = new(503, "Too many websockets are open; try again later.");

    public int Count => _open.Count;

    /// <summary>Counts a handshake in: false when that puts it over the cap (refuse it with <see cref="Full"/>). Call
    /// <see cref="Leave"/> once either way, when the websocket or the refusal is done.</summary>
    public bool Enter() => Interlocked.Increment(ref _admitted) <= maxOpen;

    public void Leave() => Interlocked.Decrement(ref _admitted);

    public void Add(WebSocketChannel channel) => _open.TryAdd(channel, 0);

    public void Remove(WebSocketChannel channel) => _open.TryRemove(channel, out _);

    /// <summary>
    /// On <see cref="IHostApplicationLifetime.ApplicationStopping"/>, which comes before the server stops (and, over
    /// HTTP/2, before Kestrel's GOAWAY), sends Close 1001 on every open websocket. Kestrel then waits, within the host's
    /// shutdown timeout, for the endpoints to return, and each does once its close handshake ends (answered, or after
    /// the close timeout).
    /// </summary>
    public void CloseOnShutdown(IServiceProvider services)
    {
        services.GetService<IHostApplicationLifetime>()?.ApplicationStopping.Register(() =>
        {
            foreach (WebSocketChannel channel in _open.Keys)
            {
                _ = CloseQuietlyAsync(channel);
            }
        });
    }

    private static async Task CloseQuietlyAsync(WebSocketChannel channel)
    {
        try
        {
            await channel.CloseAsync((ushort)CloseStatus.GoingAway, "server shutting down").ConfigureAwait(false);
            await channel.Completion.ConfigureAwait(false);
        }
        catch (Exception error) when (error is InvalidOperationException or IOException or OperationCanceledException)
        {
            channel.Abort();
        }
    }
}
