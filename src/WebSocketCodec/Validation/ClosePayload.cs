using System.Buffers.Binary;
using System.Text;
using System.Text.Unicode;

namespace WebSocketCodec;

/// <summary>The payload of a Close frame (RFC 6455 §5.5.1), empty or a 2-byte status then a UTF-8 reason: read and
/// write it when you handle Close frames yourself; the session does it for every websocket of the driver.</summary>
public static class ClosePayload
{
    /// <summary>The longest reason that fits a control frame: 125 - 2 bytes.</summary>
    public const int MaxReasonLength = 123;

    /// <summary>Reads and validates a whole Close payload (already unmasked).</summary>
    /// <param name="payload">The payload.</param>
    /// <param name="status">The status code, or <see cref="CloseStatus.NoStatusReceived"/> (1005) for an empty
    /// payload.</param>
    /// <param name="reason">The UTF-8 reason bytes, a slice of <paramref name="payload"/>.</param>
    /// <returns><see cref="ProtocolViolation.None"/>, or the rule broken.</returns>
    public static ProtocolViolation Read(ReadOnlySpan<byte> payload, out CloseStatus status, out ReadOnlySpan<byte> reason)
    {
        reason = default;
        status = CloseStatus.NoStatusReceived;
        switch (payload.Length)
        {
            case 0:
                return ProtocolViolation.None;
            case 1:
                return ProtocolViolation.ClosePayloadTooShort;
            case > 125:
                return ProtocolViolation.ControlFrameTooLong;
        }

        status = (CloseStatus)BinaryPrimitives.ReadUInt16BigEndian(payload);
        if (!CloseStatusRules.IsValidOnWire((int)status))
        {
            return ProtocolViolation.InvalidCloseStatus;
        }

        reason = payload.Slice(2);
        return Utf8.IsValid(reason) ? ProtocolViolation.None : ProtocolViolation.InvalidCloseReasonUtf8;
    }

    /// <summary>Writes a Close payload: the status code and the UTF-8 <paramref name="reason"/>.</summary>
    /// <param name="destination">At least 2 + the reason's UTF-8 length; 125 always suffices.</param>
    /// <param name="status">A code valid on the wire (<see cref="CloseStatusRules.IsValidOnWire"/>).</param>
    /// <param name="reason">At most <see cref="MaxReasonLength"/> bytes once encoded.</param>
    /// <returns>The number of bytes written.</returns>
    public static int Write(Span<byte> destination, CloseStatus status, ReadOnlySpan<char> reason = default)
    {
        if (!CloseStatusRules.IsValidOnWire((int)status))
        {
            throw new ArgumentOutOfRangeException(nameof(status), status, "This close status may not be sent.");
        }

        int reasonLength = Encoding.UTF8.GetByteCount(reason);
        if (reasonLength > MaxReasonLength)
        {
            throw new ArgumentException($"The close reason is {reasonLength} bytes; at most 123 fit.", nameof(reason));
        }

        if (destination.Length < 2 + reasonLength)
        {
            ThrowHelper.ThrowDestinationTooSmall();
        }

        BinaryPrimitives.WriteUInt16BigEndian(destination, (ushort)status);
        return 2 + Encoding.UTF8.GetBytes(reason, destination.Slice(2));
    }
}
