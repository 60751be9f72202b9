namespace WebSocketCodec;

[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The connection frees the compressor when its output ends (ReleaseDeflater); the sender has no lifetime of its own.")]
public sealed partial class WebSocketFrameSender
{
    private MessageDeflater? _deflater; // under the output's lock, like every append
    private InflateBuffer? _compressed;
    private int _compressThreshold;
    private int _compressLimit;
    private volatile bool _sendUncompressed;

    /// <summary>Whether whole messages sent with <c>Send</c>, <c>TrySend</c> and <c>SendAsync</c> are compressed when
    /// permessage-deflate was negotiated (true, the default); false sends this websocket's messages uncompressed from
    /// the next one on (RSV1 clear, which the extension allows per message), e.g. for data known to be compressed
    /// already. Without the extension it stays false and setting it does nothing.</summary>
    public bool CompressOutgoing
    {
        get => _deflater is not null && !_sendUncompressed;
        set => _sendUncompressed = !value;
    }

    /// <summary>Compresses this side's whole messages from now on (permessage-deflate, as negotiated).</summary>
    internal void EnablePerMessageDeflate(DeflateParameters parameters, PerMessageDeflateOptions options)
    {
        WebSocketRole role = _connection.Role;
        lock (_output.Sync)
        {
            _deflater = new MessageDeflater(options.Level, parameters.CompressorKeepsContext(role));
            _compressed = new InflateBuffer(_connection.Options.Pool ?? System.Buffers.ArrayPool<byte>.Shared);
            _compressThreshold = options.Threshold;
            _compressLimit = parameters.MaxCompressedMessageLength(role);
        }
    }

    /// <summary>Frees the compressor (when the output ends).</summary>
    internal void ReleaseDeflater()
    {
        lock (_output.Sync)
        {
            _deflater?.Dispose();
            _deflater = null;
            _compressed?.Release();
        }
    }

    /// <summary>Appends one data frame, compressed (RSV1) when it is a whole Text or Binary message within the
    /// thresholds and the extension is on; fragments, and messages below the threshold, go as they are (RSV1 clear,
    /// which the extension allows per message). The caller holds the output's lock or is the read loop.</summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    private void WriteData(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin)
    {
        if (_deflater is null || !WriteCompressed(opcode, payload, fin))
        {
            _output.Current.WriteFrame(_encoder, ref _order, opcode, payload, fin); // the uncompressed path: one check more
        }
    }

    /// <summary>Compresses and appends the message when it qualifies.</summary>
    /// <returns>Whether it did.</returns>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private bool WriteCompressed(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin)
    {
        if (!fin || opcode == WebSocketOpcode.Continuation || _order.InMessage || _sendUncompressed
            || payload.Length < _compressThreshold || payload.Length > _compressLimit)
        {
            return false;
        }

        _compressed!.Reset();
        _deflater!.Compress(payload, _compressed);
        _output.Current.WriteFrame(_encoder, ref _order, opcode, _compressed.Written, fin, rsv: 4);
        _compressed.Release(); // back to the pool: an idle websocket holds no compression buffer
        return true;
    }
}
