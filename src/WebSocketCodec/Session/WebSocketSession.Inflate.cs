using System.IO.Compression;

namespace WebSocketCodec;

public sealed partial class WebSocketSession
{
    private MessageInflater? _inflater; // set when permessage-deflate was negotiated
    private InflateBuffer? _inflated;
    private bool _inflatingMessage; // the open data message is compressed
    private long _inflatedLength;
    private Utf8Validator _inflatedUtf8;
    private bool _inflatingText;

    /// <summary>The permessage-deflate parameters in force (null: not negotiated).</summary>
    public DeflateParameters? Deflate { get; private set; }

    /// <summary>
    /// Turns permessage-deflate on for this session, as negotiated in the opening handshake; call it before the first
    /// <c>Receive</c>. Compressed messages (RSV1 on their first frame) are then inflated here, fragment by fragment,
    /// and handed on with RSV clear: the handler never sees compressed bytes. The inflated message is bounded by
    /// <see cref="WebSocketSessionOptions.MaxMessagePayloadLength"/> (1009 as soon as it is passed, without inflating
    /// the rest), data that does not inflate fails with 1007, and inflated text is checked for UTF-8 (1007).
    /// </summary>
    public void EnablePerMessageDeflate(DeflateParameters parameters)
    {
        if (Deflate is not null)
        {
            throw new InvalidOperationException("permessage-deflate is on already.");
        }

        Deflate = parameters;
        _decoder = new FrameDecoder(Role, _options.ToDecoderOptions() with { PerMessageDeflate = true });
        _inflater = new MessageInflater(parameters.DecompressorKeepsContext(Role), _pool);
        _inflated = new InflateBuffer(_pool);
    }

    /// <summary>Whether a data frame must be inflated before it is handed on.</summary>
    private bool IsCompressed(in FrameHeader header) =>
        _inflater is not null && !header.IsControl
        && (header.Opcode == WebSocketOpcode.Continuation ? _inflatingMessage : (header.Rsv & 4) != 0);

    /// <summary>The frame <see cref="Inflate"/> made.</summary>
    private Span<byte> Inflated => _inflated!.Written;

    /// <summary>Inflates a compressed message's frame into <see cref="Inflated"/>.</summary>
    /// <returns>The violation, or <see cref="ProtocolViolation.None"/> with the inflated frame's header.</returns>
    private ProtocolViolation Inflate(in FrameHeader header, ReadOnlySpan<byte> payload, out FrameHeader inflatedHeader)
    {
        inflatedHeader = default;
        if (header.Opcode != WebSocketOpcode.Continuation)
        {
            _inflatingMessage = true;
            _inflatedLength = 0;
            _inflatingText = header.Opcode == WebSocketOpcode.Text && _options.ValidateUtf8;
            _inflatedUtf8.Reset();
        }

        _inflated!.Reset();
        long before = _inflatedLength;
        try
        {
            if (!_inflater!.Inflate(payload, header.Fin, _inflated, _options.MaxMessagePayloadLength, ref _inflatedLength))
            {
                return EndInflating(ProtocolViolation.MessageTooBig);
            }
        }
        catch (InvalidDataException)
        {
            _inflater!.Reset();
            return EndInflating(ProtocolViolation.InvalidCompressedData);
        }

        if (_inflatingText && !_inflatedUtf8.Append(_inflated.Written, header.Fin))
        {
            return EndInflating(ProtocolViolation.InvalidTextUtf8);
        }

        if (header.Fin)
        {
            _inflatingMessage = false;
        }

        inflatedHeader = new FrameHeader(header.Fin, 0, header.Opcode, false, 0, _inflatedLength - before);
        return ProtocolViolation.None;
    }

    private ProtocolViolation EndInflating(ProtocolViolation violation)
    {
        _inflatingMessage = false;
        _inflated!.Reset();
        _decoder.FailInPayload(violation);
        return violation;
    }

    /// <summary>After a whole compressed message: its buffers go back to the pool (the zlib context, when kept, stays).</summary>
    private void ReleaseInflateBuffers()
    {
        _inflated!.Release();
        _inflater!.ReleaseBuffers();
    }

    /// <summary>Frees the inflater's state (part of <see cref="Abort"/>).</summary>
    private void ReleaseInflater()
    {
        _inflater?.Dispose();
        _inflated?.Release();
    }
}
