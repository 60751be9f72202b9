using System.Buffers;
using System.Runtime.InteropServices;
using WebSocketCodec.Lean.Native;

namespace WebSocketCodec.Lean.Loop;

/// <summary>
/// One connection's unsent output: pooled chunks in a ring, appended at the tail by the writer and written to the
/// socket from the head with <c>writev</c>; a chunk goes back to the pool as soon as it is sent, so a websocket with
/// nothing to send holds no buffer. Not thread-safe: its connection calls it under its lock. Only bytes marked flushed
/// are sent (the writer may be appending behind them). A struct held in its connection's field (one object less per
/// websocket): never copied.
/// </summary>
internal struct SocketOutput
{
    /// <summary>The size of a chunk (a larger one, from the shared pool, for a larger request).</summary>
    public const int ChunkSize = ChunkPool.ChunkSize;

    private const int MaxVectors = 32;

    private readonly ChunkPool _pool;
#pragma warning disable IDE0044 // reassigned when the ring grows

    private byte[]?[] _arrays;
    private int[] _ends;
    private int _head;       // ring index of the oldest chunk
    private int _count;      // chunks in the ring
    private int _headSent;   // bytes of the head chunk already sent
    private long _committed; // bytes advanced, ever
    private long _flushed;   // bytes marked for sending, ever
    private long _sent;      // bytes written to the socket, ever
    private bool _writerHolds; // the writer holds memory of the tail chunk (between GetMemory and Advance)
#pragma warning restore IDE0044

    public SocketOutput(ChunkPool pool)
    {
        _pool = pool;
        _arrays = new byte[]?[2];
        _ends = new int[2];
    }

    /// <summary>Bytes marked for sending and not sent yet.</summary>
    public readonly long Unsent => _flushed - _sent;

    /// <summary>Whether the output holds no chunk at all.</summary>
    public readonly bool IsEmpty => _count == 0;

    public Memory<byte> GetMemory(int sizeHint)
    {
        int needed = Math.Max(sizeHint, 1);
        if (_count > 0)
        {
            int tail = Index(_count - 1);
            byte[] array = _arrays[tail]!;
            if (array.Length - _ends[tail] >= needed)
            {
                _writerHolds = true;
                return array.AsMemory(_ends[tail]);
            }
        }

        byte[] chunk = needed <= ChunkSize ? _pool.Rent() : ArrayPool<byte>.Shared.Rent(needed);
        if (_count == _arrays.Length)
        {
            Grow();
        }

        int index = Index(_count);
        _arrays[index] = chunk;
        _ends[index] = 0;
        _count++;
        _writerHolds = true;
        return chunk;
    }

    public void Advance(int count)
    {
        if (_count == 0 || count < 0 || _ends[Index(_count - 1)] + count > _arrays[Index(_count - 1)]!.Length)
        {
            throw new InvalidOperationException("Advanced past the memory the output gave.");
        }

        _ends[Index(_count - 1)] += count;
        _committed += count;
        _writerHolds = false;
    }

    /// <summary>Marks every committed byte for sending.</summary>
    /// <returns>The bytes marked and not sent yet.</returns>
    public long MarkFlushed()
    {
        _flushed = _committed;
        return _flushed - _sent;
    }

    /// <summary>Writes what is marked for sending, as far as the socket takes it.</summary>
    /// <returns>0 when everything marked was sent or the socket is full (<see cref="Unsent"/> says which), or the errno
    /// of a failed write.</returns>
    public unsafe int Send(int fd)
    {
        while (_flushed > _sent)
        {
            while (_count > 1 && _ends[_head] == _headSent)
            {
                PopHead(); // an empty chunk left behind (memory asked for and not written)
            }

            nint written = _count == 1 || _ends[_head] - _headSent >= _flushed - _sent ? SendHead(fd) : SendGathered(fd);
            if (written < 0)
            {
                int error = Marshal.GetLastPInvokeError();
                if (error == Libc.EINTR)
                {
                    continue;
                }

                return error == Libc.EAGAIN ? 0 : error;
            }

            Consume(written);
        }

        ReleaseIfIdle();
        return 0;
    }

    /// <summary>One <c>send</c> of what the head chunk holds for sending (the common case: no pinning handle).</summary>
    private readonly unsafe nint SendHead(int fd)
    {
        int length = (int)Math.Min(_ends[_head] - _headSent, _flushed - _sent);
        fixed (byte* start = &_arrays[_head]![_headSent])
        {
            return Libc.send(fd, start, length, Libc.MSG_NOSIGNAL);
        }
    }

    /// <summary>One <c>writev</c> of up to <see cref="MaxVectors"/> chunks, pinned for the call (pooled arrays are
    /// not pinned otherwise).</summary>
    private readonly unsafe nint SendGathered(int fd)
    {
        Span<Libc.IoVec> vectors = stackalloc Libc.IoVec[MaxVectors];
        Span<GCHandle> pins = stackalloc GCHandle[MaxVectors];
        long remaining = _flushed - _sent;
        int used = 0;
        for (int i = 0; i < _count && used < MaxVectors && remaining > 0; i++)
        {
            int index = Index(i);
            int start = i == 0 ? _headSent : 0;
            int length = (int)Math.Min(_ends[index] - start, remaining);
            if (length <= 0)
            {
                continue;
            }

            pins[used] = GCHandle.Alloc(_arrays[index]!, GCHandleType.Pinned);
            vectors[used].Base = (byte*)pins[used].AddrOfPinnedObject() + start;
            vectors[used].Length = (nuint)length;
            remaining -= length;
            used++;
        }

        try
        {
            fixed (Libc.IoVec* pointer = vectors)
            {
                return Libc.writev(fd, pointer, used);
            }
        }
        finally
        {
            for (int i = 0; i < used; i++)
            {
                pins[i].Free();
            }
        }
    }

    /// <summary>Returns every chunk to the pool (the connection closed).</summary>
    public void Release()
    {
        for (int i = 0; i < _count; i++)
        {
            int index = Index(i);
            if (i < _count - 1 || !_writerHolds)
            {
                Return(_arrays[index]!);
            }

            else if (_arrays[index]!.Length == ChunkSize)
            {
                _pool.Forget(); // a tail chunk a writer still writes into is left to the GC, never handed to another renter
            }

            _arrays[index] = null;
        }

        _count = 0;
        _head = 0;
        _headSent = 0;
        _writerHolds = false;
        _sent = _flushed = _committed;
    }

    private void Consume(long written)
    {
        _sent += written;
        while (written > 0)
        {
            int length = _ends[_head] - _headSent;
            if (written < length || (_count == 1 && _writerHolds))
            {
                _headSent += (int)written;
                return;
            }

            written -= length;
            PopHead();
        }
    }

    private void PopHead()
    {
        Return(_arrays[_head]!);
        _arrays[_head] = null;
        _head = (_head + 1) % _arrays.Length;
        _count--;
        _headSent = 0;
    }

    /// <summary>A fully sent tail chunk that no writer holds goes back to the pool too.</summary>
    private void ReleaseIfIdle()
    {
        if (_count == 1 && !_writerHolds && _sent == _committed)
        {
            Return(_arrays[_head]!);
            _arrays[_head] = null;
            _count = 0;
            _head = 0;
            _headSent = 0;
        }
    }

    private readonly void Return(byte[] chunk)
    {
        if (chunk.Length == ChunkSize)
        {
            _pool.Return(chunk);
        }
        else
        {
            ArrayPool<byte>.Shared.Return(chunk);
        }
    }

    private readonly int Index(int offset) => (_head + offset) % _arrays.Length;

    private void Grow()
    {
        var arrays = new byte[]?[_arrays.Length * 2];
        var ends = new int[_arrays.Length * 2];
        for (int i = 0; i < _count; i++)
        {
            arrays[i] = _arrays[Index(i)];
            ends[i] = _ends[Index(i)];
        }

        _arrays = arrays;
        _ends = ends;
        _head = 0;
    }
}
