using System.Buffers;

namespace WebSocketCodec;

/// <summary>One data message encoded once as a server frame (unmasked, final) in pooled memory: create one yourself to
/// send the same message to several groups with one encoding (<see cref="WebSocketGroup.Broadcast(BroadcastFrame)"/>);
/// for one group, <see cref="WebSocketGroup.Broadcast(WebSocketOpcode, ReadOnlySpan{byte})"/> makes and disposes
/// it.</summary>
/// <remarks>The same bytes serve every websocket it is broadcast to. Reference counted: the creator holds one reference
/// (<see cref="Dispose"/> gives it up), and each websocket that could not take the bytes at once holds one until it
/// has; the memory goes back to its pool when the last is given up.</remarks>
public sealed class BroadcastFrame : IDisposable
{
    private static readonly FrameEncoder ServerEncoder = new(WebSocketRole.Server);

    private readonly ArrayPool<byte> _pool;
    private byte[]? _array;
    private readonly int _capacity;
    private int _references = 1;
    private int _disposed;
    private int _queuedBy;           // members' queues that hold the frame now
    private BroadcastBudget? _budget; // where its queued bytes count (the budget of the group that first queued it)

    private BroadcastFrame(ArrayPool<byte> pool, byte[] array, int length, WebSocketOpcode opcode, int payloadLength, bool encoded = true)
    {
        _pool = pool;
        _array = array;
        _capacity = array.Length;
        Length = length;
        Opcode = opcode;
        PayloadLength = payloadLength;
        IsEncoded = encoded;
    }

    /// <summary>Whether the bytes are an encoded frame (a broadcast), or a websocket's own message still to be encoded
    /// (compressed when permessage-deflate is on) where it is appended, in the order frames leave.</summary>
    internal bool IsEncoded { get; }

    /// <summary>The payload of a message still to be encoded; valid while a reference is held.</summary>
    internal ReadOnlySpan<byte> Payload => IsEncoded
        ? throw new InvalidOperationException("The frame is encoded.")
        : new(_array ?? throw new ObjectDisposedException(nameof(BroadcastFrame)), 0, PayloadLength);

    /// <summary>Text or Binary.</summary>
    public WebSocketOpcode Opcode { get; }

    /// <summary>The payload's length.</summary>
    public int PayloadLength { get; }

    /// <summary>The encoded frame's length (header and payload): what each recipient's output takes.</summary>
    public int Length { get; }

    /// <summary>The encoded frame; valid while a reference is held.</summary>
    internal ReadOnlySpan<byte> Span => new(_array ?? throw new ObjectDisposedException(nameof(BroadcastFrame)), 0, Length);

    /// <summary>Encodes <paramref name="payload"/> as one final, unmasked frame into memory rented from
    /// <paramref name="pool"/> (the shared pool when not given).</summary>
    /// <param name="opcode">Text or Binary (a group message is a whole message; control frames are per websocket).</param>
    /// <param name="payload">The message.</param>
    /// <param name="pool">Where the frame's memory comes from and goes back to.</param>
    /// <exception cref="ArgumentException"><paramref name="opcode"/> is not Text or Binary.</exception>
    public static BroadcastFrame Create(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, ArrayPool<byte>? pool = null)
    {
        if (opcode is not (WebSocketOpcode.Text or WebSocketOpcode.Binary))
        {
            throw new ArgumentException("A broadcast is a whole Text or Binary message.", nameof(opcode));
        }

        pool ??= ArrayPool<byte>.Shared;
        byte[] array = pool.Rent(payload.Length + FrameHeaderReader.MaxHeaderLength);
        int length = ServerEncoder.Write(array, opcode, payload, fin: true);
        return new BroadcastFrame(pool, array, length, opcode, payload.Length);
    }

    /// <summary>Encodes one final frame with <paramref name="encoder"/> (a client's masks it): a websocket's own frame
    /// taken to be appended later, in order, by its own thread.</summary>
    internal static BroadcastFrame Create(FrameEncoder encoder, WebSocketOpcode opcode, ReadOnlySpan<byte> payload, ArrayPool<byte>? pool)
    {
        pool ??= ArrayPool<byte>.Shared;
        byte[] array = pool.Rent(payload.Length + FrameHeaderReader.MaxHeaderLength);
        try
        {
            int length = encoder.Write(array, opcode, payload, fin: true);
            return new BroadcastFrame(pool, array, length, opcode, payload.Length);
        }
        catch
        {
            pool.Return(array);
            throw;
        }
    }

    /// <summary>Copies one whole message of a websocket's own, to be encoded where it is appended (by the websocket's own
    /// thread, in the order frames leave: a compressor that keeps its context sees messages in that order). Its
    /// <see cref="Length"/> counts the largest header with the payload.</summary>
    internal static BroadcastFrame CreateUnencoded(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, ArrayPool<byte>? pool)
    {
        pool ??= ArrayPool<byte>.Shared;
        byte[] array = pool.Rent(Math.Max(payload.Length, 1));
        payload.CopyTo(array);
        return new BroadcastFrame(pool, array, payload.Length + FrameHeaderReader.MaxHeaderLength, opcode, payload.Length, encoded: false);
    }

    /// <summary>The pooled buffer's size: what the frame holds while queued, however many queues hold it.</summary>
    internal int Capacity => _capacity;

    /// <summary>The budget a queued copy of this frame counts against: the one it counts against already, or
    /// <paramref name="budget"/> (the queuing group's) when none holds it yet.</summary>
    internal BroadcastBudget BudgetOr(BroadcastBudget budget) => Volatile.Read(ref _budget) ?? budget;

    /// <summary>What one more queue holding the frame costs its budget: a reference, and the buffer itself when no
    /// queue holds it yet.</summary>
    internal long QueueCost => BroadcastBudget.ReferenceBytes + (Volatile.Read(ref _queuedBy) == 0 ? _capacity : 0);

    /// <summary>A member's queue took the frame: counted against its budget (the buffer once for all queues).</summary>
    /// <returns>The budget it counts against.</returns>
    internal BroadcastBudget Queued(BroadcastBudget budget)
    {
        BroadcastBudget charged = Volatile.Read(ref _budget) ?? Interlocked.CompareExchange(ref _budget, budget, null) ?? budget;
        charged.Add(BroadcastBudget.ReferenceBytes + (Interlocked.Increment(ref _queuedBy) == 1 ? _capacity : 0));
        return charged;
    }

    /// <summary>A member's queue gave the frame up (before <see cref="Release"/>): its budget is credited.</summary>
    internal void Dequeued() =>
        _budget!.Add(-(BroadcastBudget.ReferenceBytes + (Interlocked.Decrement(ref _queuedBy) == 0 ? _capacity : 0)));

    /// <summary>Gives up the creator's reference (once; later calls do nothing). Recipients still holding the frame
    /// keep it until they have taken its bytes.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            Release();
        }
    }

    /// <summary>Takes a reference unless the frame was already given back.</summary>
    internal bool TryRetain()
    {
        int count = Volatile.Read(ref _references);
        while (count > 0)
        {
            int seen = Interlocked.CompareExchange(ref _references, count + 1, count);
            if (seen == count)
            {
                return true;
            }

            count = seen;
        }

        return false;
    }

    /// <summary>Gives up a reference; the last one returns the memory.</summary>
    internal void Release()
    {
        int left = Interlocked.Decrement(ref _references);
        if (left == 0)
        {
            byte[]? array = Interlocked.Exchange(ref _array, null);
            if (array is not null)
            {
                _pool.Return(array);
            }
        }
        else if (left < 0)
        {
            throw new InvalidOperationException("The broadcast frame was released more often than retained.");
        }
    }
}
