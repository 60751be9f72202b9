using System.Buffers;
using System.Net.WebSockets;

namespace WebSocketCodec.Pipelines;

/// <summary>Messages sent while disconnected, copied into pooled buffers, bounded in messages and bytes. Not
/// thread-safe: the <see cref="ReconnectingWebSocket"/> holds its lock around every call.</summary>
internal sealed class SendQueue(ArrayPool<byte> pool, int maxMessages, long maxBytes)
{
    private readonly Queue<(byte[] Buffer, int Length, WebSocketMessageType Type)> _messages = new();

    public long Bytes { get; private set; }

    public int Count => _messages.Count;

    /// <summary>Copies the message in; false when it would pass a bound.</summary>
    public bool TryEnqueue(ReadOnlySpan<byte> payload, WebSocketMessageType type)
    {
        if (_messages.Count >= maxMessages || Bytes + payload.Length > maxBytes)
        {
            return false;
        }

        byte[] buffer = pool.Rent(Math.Max(payload.Length, 1));
        payload.CopyTo(buffer);
        _messages.Enqueue((buffer, payload.Length, type));
        Bytes += payload.Length;
        return true;
    }

    /// <summary>The oldest message, left in the queue until <see cref="RemoveFirst"/>.</summary>
    public bool TryPeek(out ReadOnlyMemory<byte> payload, out WebSocketMessageType type)
    {
        if (_messages.TryPeek(out (byte[] Buffer, int Length, WebSocketMessageType Type) first))
        {
            payload = first.Buffer.AsMemory(0, first.Length);
            type = first.Type;
            return true;
        }

        payload = default;
        type = default;
        return false;
    }

    /// <summary>Removes the oldest message (it was written) and returns its buffer.</summary>
    public void RemoveFirst()
    {
        (byte[] buffer, int length, _) = _messages.Dequeue();
        Bytes -= length;
        pool.Return(buffer);
    }

    /// <summary>Drops every message and returns their buffers.</summary>
    public void Clear()
    {
        while (_messages.Count > 0)
        {
            RemoveFirst();
        }
    }
}
