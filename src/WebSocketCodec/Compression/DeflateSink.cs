using System.Buffers;

namespace WebSocketCodec;

/// <summary>
/// The stream a compressor writes into: passes the bytes on to the current message's output, holding back the last
/// four, so the sync flush's <c>00 00 FF FF</c> tail can be dropped (RFC 7692 §7.2.1). Without a target (between
/// messages, and while a compressor is disposed) the bytes are discarded.
/// </summary>
internal sealed class DeflateSink : OneWayStream
{
    private readonly byte[] _held = new byte[4];
    private int _heldCount;
    private IBufferWriter<byte>? _target;
    private long _passed;

    /// <summary>Starts a message: its compressed bytes go to <paramref name="target"/>.</summary>
    public void Begin(IBufferWriter<byte> target)
    {
        _target = target;
        _heldCount = 0;
        _passed = 0;
    }

    /// <summary>Ends the message: drops the held tail when it is the sync flush's, and detaches the target.</summary>
    /// <returns>How many bytes went to the target.</returns>
    public long End()
    {
        if (_target is not null && !(_heldCount == 4 && _held.AsSpan().SequenceEqual(DeflateTail.Bytes)))
        {
            Pass(_held.AsSpan(0, _heldCount)); // not a sync flush's end (not expected after Flush): keep every byte
        }

        long passed = _passed;
        _target = null;
        _heldCount = 0;
        return passed;
    }

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        if (_target is null)
        {
            return;
        }

        if (buffer.Length >= 4)
        {
            Pass(_held.AsSpan(0, _heldCount));
            Pass(buffer[..^4]);
            buffer[^4..].CopyTo(_held);
            _heldCount = 4;
            return;
        }

        int overflow = _heldCount + buffer.Length - 4;
        if (overflow > 0)
        {
            Pass(_held.AsSpan(0, overflow));
            _held.AsSpan(overflow, _heldCount - overflow).CopyTo(_held);
            _heldCount -= overflow;
        }

        buffer.CopyTo(_held.AsSpan(_heldCount));
        _heldCount += buffer.Length;
    }

    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    public override void WriteByte(byte value) => Write(new ReadOnlySpan<byte>(in value));

    public override bool CanRead => false;

    public override bool CanWrite => true;

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    private void Pass(ReadOnlySpan<byte> bytes)
    {
        if (!bytes.IsEmpty)
        {
            _target!.Write(bytes);
            _passed += bytes.Length;
        }
    }
}
