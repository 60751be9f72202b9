using System.Collections.Concurrent;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>The websockets open on one endpoint or listener, so shutdown can close each with 1001.</summary>
internal sealed class WebSocketRegistry
{
    private readonly ConcurrentDictionary<WebSocketChannel, byte> _open = new();

    public int Count => _open.Count;

    public void Add(WebSocketChannel channel) => _open.TryAdd(channel, 0);

    public void Remove(WebSocketChannel channel) => _open.TryRemove(channel, out _);

    /// <summary>Sends Close 1001 on every open websocket; their read loops then finish the handshakes.</summary>
    public void CloseAll()
    {
        foreach (WebSocketChannel channel in _open.Keys)
        {
            _ = CloseQuietlyAsync(channel);
        }
    }

    private static async Task CloseQuietlyAsync(WebSocketChannel channel)
    {
        try
        {
            await channel.CloseAsync((ushort)CloseStatus.GoingAway, "server shutting down").ConfigureAwait(false);
        }
        catch (Exception error) when (error is InvalidOperationException or IOException or OperationCanceledException)
        {
            channel.Abort();
        }
    }
}
