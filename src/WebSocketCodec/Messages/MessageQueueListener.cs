using System.Buffers;
using System.Net.WebSockets;
using System.Runtime.CompilerServices;
using System.Threading.Channels;

namespace WebSocketCodec;

/// <summary>Queues whole messages in pooled buffers for <see cref="MessageWebSocket.ReceiveAsync"/>, and pauses the
/// read loop while the queue is full: in messages or in bytes, whichever bound is reached first.</summary>
internal sealed class MessageQueueListener : IWebSocketFrameListener, IDisposable
{
    private readonly ArrayPool<byte> _pool;
    private readonly MessageAssembler _assembler;
    private readonly Channel<WebSocketMessage> _queue = Channel.CreateUnbounded<WebSocketMessage>(
        new UnboundedChannelOptions { SingleReader = false, SingleWriter = true });

    private int _capacity;
    private long _byteCapacity;
    private int _queued;
    private long _queuedBytes;
    private TaskCompletionSource? _room;

    public MessageQueueListener(ArrayPool<byte> pool, int capacity, long byteCapacity = long.MaxValue)
    {
        _pool = pool;
        _assembler = new MessageAssembler(pool);
        _capacity = capacity;
        _byteCapacity = byteCapacity;
    }

    private bool HasRoom => Volatile.Read(ref _queued) < Volatile.Read(ref _capacity)
        && Interlocked.Read(ref _queuedBytes) < Interlocked.Read(ref _byteCapacity);

    public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        byte[] buffer;
        int length;
        bool text;
        if (fin && opcode != WebSocketOpcode.Continuation)
        {
            buffer = _pool.Rent(Math.Max(1, payload.Length));
            payload.CopyTo(buffer);
            length = payload.Length;
            text = opcode == WebSocketOpcode.Text;
        }
        else
        {
            _assembler.Append(opcode, payload);
            if (!fin)
            {
                return;
            }

            text = _assembler.IsText;
            _assembler.Detach(out buffer, out length);
        }

        var message = new WebSocketMessage(_pool, buffer, length, text ? WebSocketMessageType.Text : WebSocketMessageType.Binary);
        Interlocked.Increment(ref _queued);
        Interlocked.Add(ref _queuedBytes, length);
        if (!_queue.Writer.TryWrite(message))
        {
            message.Dispose();
        }
    }

    public ValueTask OnReadCompleteAsync(CancellationToken cancellationToken)
    {
        if (HasRoom)
        {
            return default;
        }

        var room = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Volatile.Write(ref _room, room);
        if (HasRoom)
        {
            room.TrySetResult(); // a receive made room in between
        }

        return new ValueTask(room.Task.WaitAsync(cancellationToken));
    }

    /// <summary>Stops pausing the read loop (the application is closing and will not drain the queue).</summary>
    public void ReleasePause()
    {
        Volatile.Write(ref _capacity, int.MaxValue);
        Interlocked.Exchange(ref _byteCapacity, long.MaxValue);
        Interlocked.Exchange(ref _room, null)?.TrySetResult();
    }

    public void OnClose(WebSocketCloseInfo info)
    {
        _assembler.Dispose();
        _queue.Writer.TryComplete();
        _room?.TrySetResult();
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<WebSocketMessage?> ReceiveAsync(CancellationToken cancellationToken)
    {
        while (await _queue.Reader.WaitToReadAsync(cancellationToken).ConfigureAwait(false))
        {
            if (_queue.Reader.TryRead(out WebSocketMessage? message))
            {
                Interlocked.Decrement(ref _queued);
                Interlocked.Add(ref _queuedBytes, -message.Length);
                if (HasRoom)
                {
                    Interlocked.Exchange(ref _room, null)?.TrySetResult();
                }

                return message;
            }
        }

        return null;
    }

    public void Dispose() => DisposeQueued();

    /// <summary>Returns the buffers of messages never received.</summary>
    public void DisposeQueued()
    {
        _assembler.Dispose();
        _queue.Writer.TryComplete();
        while (_queue.Reader.TryRead(out WebSocketMessage? message))
        {
            message.Dispose();
        }
    }
}
