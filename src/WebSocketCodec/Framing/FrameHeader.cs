using System.Runtime.CompilerServices;

namespace WebSocketCodec;

/// <summary>A parsed RFC 6455 §5.2 frame header, as <see cref="FrameHeaderReader"/> and <see cref="FrameDecoder"/>
/// return it: read it when you parse frames yourself, or build one to write with <see cref="FrameHeaderWriter"/>. A
/// plain value: it holds no buffer and costs no allocation.</summary>
public readonly struct FrameHeader : IEquatable<FrameHeader>
{
    private readonly byte _first; // FIN | RSV1 | RSV2 | RSV3 | opcode(4)
    private readonly byte _headerLength;
    private readonly bool _masked;

    /// <summary>Creates a header value.</summary>
    /// <param name="fin">Whether this is the final fragment of its message.</param>
    /// <param name="rsv">The three RSV bits as a number 0-7 (RSV1 = 4, RSV2 = 2, RSV3 = 1).</param>
    /// <param name="opcode">The opcode, 0-15.</param>
    /// <param name="masked">Whether the payload is masked.</param>
    /// <param name="maskKey">The mask key: the four key bytes in wire order, read as a little-endian integer.</param>
    /// <param name="payloadLength">The payload length in bytes.</param>
    public FrameHeader(bool fin, int rsv, WebSocketOpcode opcode, bool masked, int maskKey, long payloadLength)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan((uint)rsv, 7u, nameof(rsv));
        ArgumentOutOfRangeException.ThrowIfGreaterThan((uint)opcode, 15u, nameof(opcode));
        ArgumentOutOfRangeException.ThrowIfNegative(payloadLength);
        _first = (byte)((fin ? 0x80 : 0) | (rsv << 4) | (int)opcode);
        _masked = masked;
        MaskKey = masked ? maskKey : 0;
        PayloadLength = payloadLength;
        _headerLength = (byte)FrameHeaderWriter.GetHeaderLength(payloadLength, masked);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal FrameHeader(byte first, bool masked, int maskKey, long payloadLength, int headerLength)
    {
        _first = first;
        _masked = masked;
        MaskKey = maskKey;
        PayloadLength = payloadLength;
        _headerLength = (byte)headerLength;
    }

    /// <summary>FIN: this frame is the final fragment of its message.</summary>
    public bool Fin => (_first & 0x80) != 0;

    /// <summary>The RSV1-3 bits as a number 0-7 (RSV1 = 4, RSV2 = 2, RSV3 = 1).</summary>
    public int Rsv => (_first >> 4) & 0x7;

    /// <summary>The opcode. May be a reserved value when read off the wire before validation.</summary>
    public WebSocketOpcode Opcode => (WebSocketOpcode)(_first & 0x0F);

    /// <summary>Whether the opcode is a control opcode (Close, Ping, Pong or a reserved control value).</summary>
    public bool IsControl => (_first & 0x08) != 0;

    /// <summary>MASK: the payload is masked with <see cref="MaskKey"/>.</summary>
    public bool IsMasked => _masked;

    /// <summary>The four mask key bytes in wire order, read as a little-endian integer; 0 when not masked.</summary>
    public int MaskKey { get; }

    /// <summary>The payload length in bytes.</summary>
    public long PayloadLength { get; }

    /// <summary>The length of the header on the wire: 2 to 14 bytes.</summary>
    public int HeaderLength => _headerLength;

    /// <summary>The header and payload length together.</summary>
    public long FrameLength => _headerLength + PayloadLength;

    /// <inheritdoc />
    public bool Equals(FrameHeader other) =>
        _first == other._first && _masked == other._masked && MaskKey == other.MaskKey &&
        PayloadLength == other.PayloadLength && _headerLength == other._headerLength;

    /// <inheritdoc />
    public override bool Equals(object? obj) => obj is FrameHeader other && Equals(other);

    /// <inheritdoc />
    public override int GetHashCode() => HashCode.Combine(_first, _masked, MaskKey, PayloadLength);

    /// <summary>Compares two headers field by field.</summary>
    public static bool operator ==(FrameHeader left, FrameHeader right) => left.Equals(right);

    /// <summary>Compares two headers field by field.</summary>
    public static bool operator !=(FrameHeader left, FrameHeader right) => !left.Equals(right);

    /// <inheritdoc />
    public override string ToString() =>
        $"{Opcode} fin={Fin} rsv={Rsv} masked={_masked} length={PayloadLength} header={_headerLength}";
}
