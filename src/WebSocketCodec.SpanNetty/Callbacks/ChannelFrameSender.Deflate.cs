using System.Buffers;
using System.Runtime.CompilerServices;

namespace WebSocketCodec.SpanNetty;

// permessage-deflate on the way out: whole Text and Binary messages sent with Send, TrySend and SendAsync are
// compressed from the threshold up (RSV1); everything else goes as it is. All of it runs on the event loop.
public sealed partial class ChannelFrameSender
{
    private MessageDeflater? _deflater; // set when permessage-deflate was negotiated
    private InflateBuffer? _compressed;
    private int _compressThreshold;
    private int _compressLimit;
    private volatile bool _compressOutgoing = true;

    /// <summary>Whether whole messages sent with <see cref="Send"/>, <see cref="TrySend"/> and <see cref="SendAsync"/>
    /// are compressed when permessage-deflate was negotiated (true by default; no effect otherwise). Set it to false to
    /// send this websocket's next messages uncompressed (RSV1 clear, which the extension allows per message), e.g.
    /// for data that is compressed already; from any thread, for the messages sent after.</summary>
    public bool CompressOutgoing
    {
        get => _compressOutgoing;
        set => _compressOutgoing = value;
    }

    /// <summary>Compresses this side's whole messages from now on, as negotiated (event loop, when the handler is
    /// added).</summary>
    internal void EnablePerMessageDeflate(DeflateParameters parameters, PerMessageDeflateOptions options, ArrayPool<byte> pool)
    {
        WebSocketRole role = _handler.Role;
        _deflater = new MessageDeflater(options.Level, parameters.CompressorKeepsContext(role));
        _compressed = new InflateBuffer(pool);
        _compressThreshold = options.Threshold;
        _compressLimit = parameters.MaxCompressedMessageLength(role);
    }

    /// <summary>Frees the compressor and its buffer (the websocket ended; event loop).</summary>
    internal void ReleaseDeflater()
    {
        _deflater?.Dispose();
        _deflater = null;
        _compressed?.Release();
    }

    /// <summary>Writes one data frame, compressed (RSV1) when it is a whole Text or Binary message within the
    /// thresholds and the extension is on; otherwise as it is.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void WriteData(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin)
    {
        if (_deflater is null || !WriteCompressed(opcode, payload, fin))
        {
            _output.WriteFrame(_encoder, ref _order, opcode, payload, fin); // the uncompressed path: one check more
        }
    }

    /// <summary>Compresses and writes the message when it qualifies.</summary>
    /// <returns>Whether it did.</returns>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool WriteCompressed(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin)
    {
        if (!fin || opcode == WebSocketOpcode.Continuation || _order.InMessage || !_compressOutgoing
            || payload.Length < _compressThreshold || payload.Length > _compressLimit)
        {
            return false;
        }

        InflateBuffer compressed = _compressed!;
        compressed.Reset();
        _deflater!.Compress(payload, compressed);
        _output.WriteFrame(_encoder, ref _order, opcode, compressed.Written, fin, rsv: 4);
        compressed.Release(); // back to the pool: an idle websocket holds no compression buffer
        return true;
    }
}
