using WebSocketCodec.Fuzz;
using WebSocketCodec.Fuzz.Model;

namespace WebSocketCodec.Bench.Tests.Fuzz;

/// <summary>The reference model's rules one by one (RFC 6455 §5, §7.4; RFC 7692 §6.1), each with the statuses it
/// allows and where it proves the rule when the input is cut short.</summary>
public class ReferenceModelRuleTests
{
    private static readonly ModelOptions Server = new(IsServer: true);

    [Theory]
    [InlineData(0x83, ModelRule.ReservedOpcode)] // opcode 3
    [InlineData(0x8B, ModelRule.ReservedOpcode)] // opcode 11 (a reserved control opcode)
    [InlineData(0xA2, ModelRule.ReservedBit)] // RSV2 on a Binary frame
    [InlineData(0x09, ModelRule.ControlFrameNotFinal)] // Ping without FIN
    [InlineData(0x80, ModelRule.ContinuationWithoutMessage)] // continuation, nothing open
    public void AHeaderRuleOfTheFirstByteIsProvenThereAndFailsOnceTheHeaderIsIn(int first, ModelRule rule)
    {
        ModelVerdict cut = ReferenceModel.Read([(byte)first], Server);
        Assert.Equal((ModelEnd.NeedsMoreData, rule), (cut.End, Assert.Single(cut.Broken)));
        ModelVerdict whole = ReferenceModel.Read(Masked(first, []), Server);
        Assert.Equal((ModelEnd.Rejected, rule), (whole.End, Assert.Single(whole.Broken)));
        Assert.Equal([1002], whole.Statuses);
    }

    [Fact]
    public void TheMaskBitMustMatchTheRole()
    {
        Assert.Equal(ModelRule.WrongMaskBit, Assert.Single(ReferenceModel.Read([0x82, 0x00], Server).Broken));
        Assert.Equal(ModelRule.WrongMaskBit, Assert.Single(ReferenceModel.Read(Masked(0x82, [1]), Server with { IsServer = false }).Broken));
    }

    [Theory]
    [InlineData(new byte[] { 0x82, 0xFE, 0x00, 0x7D }, ModelRule.NonMinimalLength)] // 125 in 16 bits
    [InlineData(new byte[] { 0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF }, ModelRule.NonMinimalLength)] // 65535 in 64 bits
    [InlineData(new byte[] { 0x82, 0xFF, 0x80, 0, 0, 0, 0, 1, 0, 0 }, ModelRule.LengthTopBitSet)]
    [InlineData(new byte[] { 0x89, 0xFE, 0x00, 0x7E }, ModelRule.ControlFrameTooLong)] // Ping of 126
    [InlineData(new byte[] { 0x88, 0x81, 1, 2, 3, 4 }, ModelRule.CloseBodyOfOneByte)]
    public void LengthRules(byte[] header, ModelRule rule)
    {
        ModelVerdict verdict = ReferenceModel.Read(header, Server);
        Assert.Contains(rule, verdict.Broken);
        Assert.Contains(1002, verdict.Statuses); // with 1009 too where the length is also over the frame limit
    }

    [Fact]
    public void SeveralBrokenRulesAllowEveryStatusTheyJustify()
    {
        // A Close announcing 126 bytes (too long for a control frame) over a frame limit of 100: 1002 or 1009.
        ModelVerdict verdict = ReferenceModel.Read([0x88, 0xFE, 0x00, 0x7E, 1, 2, 3, 4], Server with { MaxFramePayload = 100 });
        Assert.Equal([ModelRule.ControlFrameTooLong, ModelRule.FrameOverLimit], verdict.Broken);
        Assert.Equal([1002, 1009], verdict.Statuses.Order());

        // A Close with status 1005 and a reason that is not UTF-8: 1002 or 1007.
        ModelVerdict close = ReferenceModel.Read(Masked(0x88, [0x03, 0xED, 0xC0]), Server);
        Assert.Equal(ModelEnd.Rejected, close.End);
        Assert.Equal([1002, 1007], close.Statuses.Order());
    }

    [Fact]
    public void LimitsAreTheReceiversAndAnsweredWith1009Or1008()
    {
        ModelVerdict frame = ReferenceModel.Read([0x82, 0xFE, 0x01, 0x00], Server with { MaxFramePayload = 255 });
        Assert.Equal((ModelEnd.NeedsMoreData, ModelRule.FrameOverLimit), (frame.End, Assert.Single(frame.Broken))); // proven before the mask key
        byte[] twoFragments = [.. Masked(0x02, new byte[3]), .. Masked(0x80, new byte[3])];
        ModelVerdict message = ReferenceModel.Read(twoFragments, Server with { MaxMessagePayload = 5 });
        Assert.Equal((1, ModelRule.MessageOverLimit), (message.Frames.Count, Assert.Single(message.Broken)));
        ModelVerdict fragments = ReferenceModel.Read(twoFragments, Server with { MaxFragments = 1 });
        Assert.Equal((ModelRule.TooManyFragments, 1008), (Assert.Single(fragments.Broken), Assert.Single(fragments.Statuses)));

        // A control frame is no message: only the frame limit bounds it.
        Assert.Empty(ReferenceModel.Read(Masked(0x88, [0x03, 0xE8]), Server with { MaxMessagePayload = 0 }).Broken);
    }

    [Fact]
    public void FragmentsInterleavedWithControlFramesAndAContinuationInsideAMessage()
    {
        byte[] stream = [.. Masked(0x01, "He"u8), .. Masked(0x89, "p"u8), .. Masked(0x00, "l"u8), .. Masked(0x8A, []), .. Masked(0x80, "lo"u8)];
        ModelVerdict verdict = ReferenceModel.Read(stream, Server);
        Assert.Equal((5, 0), (verdict.Frames.Count, verdict.Broken.Count));
        Assert.Equal([1, 9, 0, 10, 0], verdict.Frames.Select(f => f.Opcode));

        ModelVerdict nested = ReferenceModel.Read([.. Masked(0x01, "He"u8), .. Masked(0x82, [1])], Server);
        Assert.Equal((1, ModelRule.NewMessageInsideMessage), (nested.Frames.Count, Assert.Single(nested.Broken)));
    }

    [Fact]
    public void Utf8RunsAcrossFragmentsAndACharacterMayBeCutBetweenThem()
    {
        // "€" is E2 82 AC: cut after E2 82, the rest in the final fragment (a Ping between them).
        byte[] cut = [.. Masked(0x01, [0x41, 0xE2, 0x82]), .. Masked(0x89, []), .. Masked(0x80, [0xAC])];
        Assert.Equal((3, 0), (ReferenceModel.Read(cut, Server).Frames.Count, ReferenceModel.Read(cut, Server).Broken.Count));

        // The message ends inside the character: 1007, at the end of the final frame.
        ModelVerdict unfinished = ReferenceModel.Read([.. Masked(0x01, [0x41, 0xE2]), .. Masked(0x80, [0x82])], Server);
        Assert.Equal((1, ModelEnd.Rejected, ModelRule.TextNotUtf8), (unfinished.Frames.Count, unfinished.End, Assert.Single(unfinished.Broken)));
        Assert.Equal([1007], unfinished.Statuses);

        // A fragment may end inside a character when more follows.
        Assert.Empty(ReferenceModel.Read(Masked(0x01, [0xF0, 0x9F]), Server).Broken);
    }

    [Theory]
    [InlineData(new byte[] { 0xC0, 0x80 }, 1)] // overlong: C0 can start nothing
    [InlineData(new byte[] { 0xE0, 0x9F, 0xBF }, 2)] // overlong three-byte form
    [InlineData(new byte[] { 0xED, 0xA0, 0x80 }, 2)] // a surrogate, U+D800
    [InlineData(new byte[] { 0xF4, 0x90, 0x80, 0x80 }, 2)] // above U+10FFFF
    [InlineData(new byte[] { 0xF5 }, 1)]
    [InlineData(new byte[] { 0x41, 0x80 }, 2)] // a continuation byte with no lead
    public void InvalidUtf8IsProvenAtTheFirstByteNoTextCouldHave(byte[] text, int provenAt)
    {
        for (int length = 0; length <= text.Length; length++)
        {
            // A text frame announcing 10 bytes, of which the first `length` are here.
            byte[] wire = [.. Masked(0x81, [.. text, .. new byte[10 - text.Length]]).AsSpan(0, 6 + length)];
            ModelVerdict verdict = ReferenceModel.Read(wire, Server);
            Assert.Equal(length >= provenAt ? new[] { ModelRule.TextNotUtf8 } : [], verdict.Broken);
            Assert.Equal(ModelEnd.NeedsMoreData, verdict.End);
        }

        Assert.Empty(ReferenceModel.Read(Masked(0x81, text), Server with { ValidateUtf8 = false }).Broken);
    }

    [Theory]
    [InlineData(1000, true)]
    [InlineData(1003, true)]
    [InlineData(1004, false)]
    [InlineData(1005, false)]
    [InlineData(1006, false)]
    [InlineData(1007, true)]
    [InlineData(1011, true)]
    [InlineData(1014, true)]
    [InlineData(1015, false)]
    [InlineData(1016, false)]
    [InlineData(2999, false)]
    [InlineData(3000, true)]
    [InlineData(4999, true)]
    [InlineData(5000, false)]
    [InlineData(999, false)]
    [InlineData(0, false)]
    public void CloseStatusesAllowedOnTheWire(int code, bool allowed)
    {
        ModelVerdict verdict = ReferenceModel.Read(Masked(0x88, WireFrame.ClosePayload(code, "ok")), Server);
        Assert.Equal(allowed ? [] : new[] { ModelRule.CloseStatusNotAllowed }, verdict.Broken);
        Assert.Equal(allowed ? 1 : 0, verdict.Frames.Count);
    }

    [Fact]
    public void ACloseBodyIsEmptyOrAStatusAndAUtf8Reason()
    {
        Assert.Single(ReferenceModel.Read(Masked(0x88, []), Server).Frames);
        Assert.Equal([ModelRule.CloseReasonNotUtf8], ReferenceModel.Read(Masked(0x88, [0x03, 0xE8, 0xE2, 0x82]), Server).Broken);
        Assert.Empty(ReferenceModel.Read(Masked(0x88, [0x03, 0xE8, 0xE2, 0x82]), Server with { ValidateUtf8 = false }).Broken);
    }

    [Fact]
    public void UnmaskingRotatesTheKeyOverThePayload()
    {
        byte[] payload = [.. Enumerable.Range(0, 9).Select(i => (byte)(i * 29))];
        Assert.Equal(payload, Assert.Single(ReferenceModel.Read(Masked(0x82, payload), Server).Frames).Payload);
    }

    private static byte[] Masked(int first, ReadOnlySpan<byte> payload) => WireFrame.Build((byte)first, payload, masked: true);
}
