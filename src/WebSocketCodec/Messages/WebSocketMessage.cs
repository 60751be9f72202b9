using System.Buffers;
using System.Net.WebSockets;
using System.Text;

namespace WebSocketCodec;

/// <summary>One whole received message in a pooled buffer, as <see cref="MessageWebSocket.ReceiveAsync"/> returns it:
/// read <see cref="Payload"/> (or <see cref="GetText"/>), then dispose it to return the buffer (once; later calls do
/// nothing).</summary>
public sealed class WebSocketMessage : IDisposable
{
    private readonly ArrayPool<byte> _pool;
    private byte[]? _buffer;

    internal WebSocketMessage(ArrayPool<byte> pool, byte[] buffer, int length, WebSocketMessageType type)
    {
        _pool = pool;
        _buffer = buffer;
        Length = length;
        Type = type;
    }

    /// <summary>Text or Binary.</summary>
    public WebSocketMessageType Type { get; }

    /// <summary>The payload's length in bytes.</summary>
    public int Length { get; }

    /// <summary>The payload (UTF-8 for text, already validated). Not valid after <see cref="Dispose"/>.</summary>
    public ReadOnlyMemory<byte> Payload => _buffer is { } buffer ? buffer.AsMemory(0, Length) : throw Disposed();

    /// <summary>The payload as a string (for text messages).</summary>
    public string GetText() => Encoding.UTF8.GetString(Payload.Span);

    /// <summary>Returns the buffer to its pool.</summary>
    public void Dispose()
    {
        byte[]? buffer = Interlocked.Exchange(ref _buffer, null);
        if (buffer is not null)
        {
            _pool.Return(buffer);
        }
    }

    private static ObjectDisposedException Disposed() => new(nameof(WebSocketMessage));
}
