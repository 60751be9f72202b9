using System.Buffers;
using DotNetty.Buffers;
using DotNetty.Common.Utilities;

namespace WebSocketCodec.SpanNetty;

/// <summary>Gathers an HTTP/1.1 head from inbound buffers, within its bound, for the core's strict parser; what comes
/// after the head (frames the peer sent right behind it) is handed back as a buffer of its own.</summary>
internal sealed class HeadAccumulator(int maxLength) : IDisposable
{
    private byte[]? _bytes = ArrayPool<byte>.Shared.Rent(maxLength);
    private int _length;

    /// <summary>Bytes of the head received so far.</summary>
    public int Length => _length;

    /// <summary>Takes the readable bytes of <paramref name="input"/> (it stays the caller's to release) and parses.</summary>
    /// <param name="input">The next inbound bytes.</param>
    /// <param name="allocator">For the rest behind the head.</param>
    /// <param name="head">The head, on Done.</param>
    /// <param name="rest">On Done, the bytes after the head (the caller owns it), or null when there are none.</param>
    /// <param name="error">On InvalidData, why (a head beyond the bound is <see cref="HttpHeadError.HeadTooLarge"/>).</param>
    public OperationStatus Append(
        IByteBuffer input, IByteBufferAllocator allocator, out HttpHead? head, out IByteBuffer? rest, out HttpHeadError error)
    {
        byte[] bytes = _bytes ?? throw new ObjectDisposedException(nameof(HeadAccumulator));
        rest = null;
        int take = Math.Min(input.ReadableBytes, maxLength - _length);
        input.ReadBytes(bytes.AsSpan(_length, take));
        _length += take;
        OperationStatus status = HttpHeadParser.TryParse(bytes.AsSpan(0, _length), out head, out int headLength, out error, maxLength);
        if (status == OperationStatus.Done)
        {
            int behind = _length - headLength + input.ReadableBytes;
            if (behind > 0)
            {
                rest = allocator.Buffer(behind);
                rest.WriteBytes(bytes.AsSpan(headLength, _length - headLength));
                rest.WriteBytes(input);
            }
        }
        else if (status == OperationStatus.NeedMoreData && _length == maxLength)
        {
            error = HttpHeadError.HeadTooLarge;
            status = OperationStatus.InvalidData;
        }

        return status;
    }

    /// <summary>One channel read for a handshake handler: <paramref name="message"/> is released here, whatever it is;
    /// nothing is parsed when it is not bytes or when <paramref name="accumulator"/> is null (the handshake is over).</summary>
    /// <returns>NeedMoreData until the head is whole, then what <see cref="Append"/> returns.</returns>
    public static OperationStatus AppendRead(
        HeadAccumulator? accumulator, object message, IByteBufferAllocator allocator,
        out HttpHead? head, out IByteBuffer? rest, out HttpHeadError error)
    {
        head = null;
        rest = null;
        error = default;
        if (message is not IByteBuffer input)
        {
            ReferenceCountUtil.Release(message);
            return OperationStatus.NeedMoreData;
        }

        try
        {
            return accumulator is null ? OperationStatus.NeedMoreData : accumulator.Append(input, allocator, out head, out rest, out error);
        }
        finally
        {
            input.Release();
        }
    }

    public void Dispose()
    {
        byte[]? bytes = _bytes;
        _bytes = null;
        if (bytes is not null)
        {
            ArrayPool<byte>.Shared.Return(bytes);
        }
    }
}
