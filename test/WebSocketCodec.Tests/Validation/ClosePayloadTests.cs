using System.Text;

namespace WebSocketCodec.Tests.Validation;

public class ClosePayloadTests
{
    [Fact]
    public void EveryCodeIsJudgedPerRfc6455AndTheIanaRegistry()
    {
        for (int code = 0; code <= ushort.MaxValue; code++)
        {
            bool expected = code is (>= 1000 and <= 1003) or (>= 1007 and <= 1014) or (>= 3000 and <= 4999);
            Assert.True(expected == CloseStatusRules.IsValidOnWire(code), $"code {code}");
        }
    }

    [Fact]
    public void EmptyPayloadMeansNoStatus()
    {
        Assert.Equal(ProtocolViolation.None, ClosePayload.Read([], out CloseStatus status, out var reason));
        Assert.Equal(CloseStatus.NoStatusReceived, status);
        Assert.True(reason.IsEmpty);
    }

    [Theory]
    [InlineData(new byte[] { 0x03 }, ProtocolViolation.ClosePayloadTooShort, CloseStatus.ProtocolError)]
    [InlineData(new byte[] { 0x03, 0xEC }, ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError)] // 1004
    [InlineData(new byte[] { 0x03, 0xED }, ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError)] // 1005
    [InlineData(new byte[] { 0x03, 0xF7 }, ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError)] // 1015
    [InlineData(new byte[] { 0x00, 0x00 }, ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError)]
    [InlineData(new byte[] { 0x13, 0x88 }, ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError)] // 5000
    [InlineData(new byte[] { 0x03, 0xE8, 0xFF }, ProtocolViolation.InvalidCloseReasonUtf8, CloseStatus.InvalidPayloadData)]
    [InlineData(new byte[] { 0x03, 0xE8, 0xED, 0xA0, 0x80 }, ProtocolViolation.InvalidCloseReasonUtf8, CloseStatus.InvalidPayloadData)]
    public void InvalidPayloadsAreRefusedWithTheirStatus(byte[] payload, ProtocolViolation violation, CloseStatus status)
    {
        Assert.Equal(violation, ClosePayload.Read(payload, out _, out _));
        Assert.Equal(status, violation.ToCloseStatus());
    }

    [Theory]
    [InlineData(1000, "")]
    [InlineData(1001, "going away")]
    [InlineData(1014, "bad gateway")]
    [InlineData(4999, "κόσμε 😀")]
    public void WrittenPayloadReadsBack(int code, string reason)
    {
        Span<byte> payload = stackalloc byte[125];
        int written = ClosePayload.Write(payload, (CloseStatus)code, reason);
        Assert.Equal(2 + System.Text.Encoding.UTF8.GetByteCount(reason), written);
        Assert.Equal(ProtocolViolation.None, ClosePayload.Read(payload[..written], out CloseStatus status, out var readReason));
        Assert.Equal(code, (int)status);
        Assert.Equal(reason, System.Text.Encoding.UTF8.GetString(readReason));
    }

    [Fact]
    public void WriteRefusesWhatMayNotBeSent()
    {
        byte[] payload = new byte[200];
        Assert.Throws<ArgumentOutOfRangeException>(() => ClosePayload.Write(payload, (CloseStatus)1005));
        Assert.Throws<ArgumentOutOfRangeException>(() => ClosePayload.Write(payload, (CloseStatus)2000));
        Assert.Throws<ArgumentException>(() => ClosePayload.Write(payload, (CloseStatus)1000, new string('é', 62))); // 124 bytes
        Assert.Equal(124, ClosePayload.Write(payload, (CloseStatus)1000, new string('é', 61)));
        Assert.Throws<ArgumentException>(() => ClosePayload.Write(new byte[5], (CloseStatus)1000, "too long"));
    }

    [Fact]
    public void EveryViolationMapsToOneStatusAndAShortAsciiReason()
    {
        foreach (var violation in Enum.GetValues<ProtocolViolation>())
        {
            CloseStatus expected = violation switch
            {
                ProtocolViolation.None => CloseStatus.NormalClosure,
                ProtocolViolation.FrameTooBig or ProtocolViolation.MessageTooBig => CloseStatus.MessageTooBig,
                ProtocolViolation.InvalidTextUtf8 or ProtocolViolation.InvalidCloseReasonUtf8 or ProtocolViolation.InvalidCompressedData => CloseStatus.InvalidPayloadData,
                ProtocolViolation.TooManyFragments or ProtocolViolation.FrameTooSlow => CloseStatus.PolicyViolation,
                _ => CloseStatus.ProtocolError,
            };
            Assert.Equal(expected, violation.ToCloseStatus());
            string reason = violation.Describe();
            Assert.InRange(reason.Length, 1, ClosePayload.MaxReasonLength);
            Assert.True(Ascii.IsValid(reason));
            Assert.NotEqual("unknown violation", reason);
        }
    }
}
