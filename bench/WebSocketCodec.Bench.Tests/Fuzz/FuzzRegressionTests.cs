using System.Buffers;
using System.Text;
using WebSocketCodec.Fuzz;

namespace WebSocketCodec.Bench.Tests.Fuzz;

/// <summary>
/// Inputs the fuzzer found (seed 22), kept as regression cases: each runs through its target under 32 option and cut
/// draws, and the rule it broke is also pinned directly.
/// </summary>
public class FuzzRegressionTests
{
    [Theory]
    [InlineData("frames", "827F0000010000000000", WebSocketRole.Server)] // unmasked + 2^40 bytes: 1002 cut, 1009 whole
    [InlineData("frames", "01FF7FFFFFFFFFFFFFFF", WebSocketRole.Client)] // masked + over the limit
    [InlineData("frames", "827F8000000000000001", WebSocketRole.Server)] // unmasked + top bit set
    [InlineData("frames", "82FF000001000000000077BF4EFC", WebSocketRole.Client)]
    [InlineData("frames", "887D03E8" + "727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272727272", WebSocketRole.Client)] // a Close under a message limit < 125: 1009 before the fix (the reference model's find)
    [InlineData("session", "8805A5ABBED70103803D80C14E", WebSocketRole.Client)]
    [InlineData("session", "827F0000010000000000", WebSocketRole.Server)]
    [InlineData("http1", "480A5454502F312E31203230C4204F4B0D0A436F6E74557067726164653A206774683A20300D0A0D0A474554202F636861743F783D3120485454502F312E310D0A486F73743A207365727665722E6578616D706C652E636F6D0D0A557067726164653A20776562736F636B65740D0A436F6E6E656374696F6E3A20557067726164650D0A5365632D576562536F636B65742D4B65793A206447686C49484E68625842735A5342756232356A5A510D0A5365632D576562536F636B65742D56657273696F6E3A2031330D0A0D0A", null)]
    [InlineData("http1", "474554200A5365632D576562536F636B65742D4B65795342756232356A5A513D3D0D0A5365632D576562536F3A206447686C49484E68625842735A5342756232356A5A513D3D0D0A5365632D576562536F636B65742D56657273696F6E3A20380D0A0D0A", null)]
    [InlineData("negotiation", "7065726D6573736167652D6465666C6174653B20636C69656E745F6D61785F77696E646F775F626974733D22315C3222", null)] // client_max_window_bits="1\2": declined before the fix
    [InlineData("h2response", "3230300A6F70656E0A7365632D776562736F636B65742D70726F746F636F6C3AA02063686174", null)] // "\u00A0 chat" was trimmed to chat
    [InlineData("inflate", "8000113A0AC814007F18080081000402B30100", null)] // invalid and over a 0-byte limit: 1007 or 1009 by the cut
    public void AFoundInputPassesEveryOracle(string target, string hex, WebSocketRole? role)
    {
        var runner = new FuzzRunner(22);
        IFuzzTarget fuzzTarget = FuzzTargets.Create(target);
        var entry = new CorpusEntry("regression", Convert.FromHexString(hex), role);
        for (ulong draw = 0; draw < 32; draw++)
        {
            FuzzViolation? violation = runner.Check(fuzzTarget, entry, Convert.FromHexString(hex), new FuzzRng(draw));
            Assert.True(violation is null, violation?.ToString());
        }
    }

    [Theory]
    [InlineData(new byte[] { 0x82, 0x7F, 0, 0, 1, 0, 0, 0, 0, 0 }, ProtocolViolation.UnmaskedFrame)] // 2^40 bytes, unmasked
    [InlineData(new byte[] { 0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1 }, ProtocolViolation.UnmaskedFrame)] // top bit set, unmasked
    [InlineData(new byte[] { 0xC2, 0xFE, 0, 100, 1, 2, 3, 4 }, ProtocolViolation.ReservedBitsSet)] // RSV1, 100 in 16 bits
    [InlineData(new byte[] { 0x80, 0xFF, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2, 3, 4 }, ProtocolViolation.UnexpectedContinuation)]
    public void AHeaderIsRefusedForTheSameRuleWholeOrCutAfterItsSecondByte(byte[] header, ProtocolViolation expected)
    {
        // The rules the first two bytes decide come before the length's: before the fix the whole header got the
        // length's rule (FrameTooBig: 1009) and a header cut after byte 2 the mask rule (1002).
        for (int cut = 2; cut <= header.Length; cut++)
        {
            var decoder = new FrameDecoder(WebSocketRole.Server);
            Assert.Equal(OperationStatus.InvalidData, decoder.ReadHeader(header.AsSpan(0, cut), out _, out _));
            Assert.Equal(expected, decoder.Violation);
        }
    }

    [Fact]
    public void ALongHeadWithABareLineFeedIsRefusedAs400HoweverMuchHadArrived()
    {
        // Before the fix: 400 (BadLineEnding) while under the bound, 431 (HeadTooLarge) once at it.
        byte[] head = Encoding.ASCII.GetBytes("GET /\nX: " + new string('a', 300));
        foreach (int length in new[] { 6, 50, 127, 128, head.Length })
        {
            Assert.Equal(OperationStatus.InvalidData, HttpHeadParser.TryParse(head.AsSpan(0, length), out _, out _, out HttpHeadError error, maxHeadLength: 128));
            Assert.Equal(HttpHeadError.BadLineEnding, error);
        }
    }
}
