using System.Text;
using WebSocketCodec.Fuzz;

namespace WebSocketCodec.Bench.Tests.Fuzz;

/// <summary>The fuzzer's independent models give the RFCs' answers on the RFCs' own examples and on each rule broken
/// once, and the inflate target's oracles can fail: without these, the models' agreement with the library in
/// <see cref="FuzzSmokeTests"/> could be two wrong answers agreeing.</summary>
public class FuzzModelTests
{
    private const string Key = "dGhlIHNhbXBsZSBub25jZQ==";

    [Fact]
    public void TheClientModelComputesTheRfcExampleAcceptAndNamesTheRuleEachBrokenResponseBreaks()
    {
        Assert.Equal("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", ClientHandshakeModel.Accept(Key)); // RFC 6455 §1.3
        List<KeyValuePair<string, string>> valid = [new("Upgrade", "websocket"), new("Connection", "keep-alive, Upgrade"), new("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")];
        Assert.Null(ClientHandshakeModel.Problem("HTTP/1.1", "101", valid, Key, ["chat"], null));
        Assert.StartsWith("1:", ClientHandshakeModel.Problem("HTTP/1.1", "200", valid, Key, [], null));
        Assert.StartsWith("2:", ClientHandshakeModel.Problem("HTTP/1.1", "101", [.. valid.Skip(1)], Key, [], null));
        Assert.StartsWith("3:", ClientHandshakeModel.Problem("HTTP/1.1", "101", [valid[0], new("Connection", "keep\"alive, Upgrade"), valid[2]], Key, [], null));
        Assert.StartsWith("4:", ClientHandshakeModel.Problem("HTTP/1.1", "101", [.. valid, valid[2]], Key, [], null));
        Assert.StartsWith("5:", ClientHandshakeModel.Problem("HTTP/1.1", "101", [.. valid, new("Sec-WebSocket-Extensions", "permessage-deflate")], Key, [], null));
        Assert.StartsWith("6:", ClientHandshakeModel.Problem("HTTP/1.1", "101", [.. valid, new("Sec-WebSocket-Protocol", "Chat")], Key, ["chat"], null));
    }

    [Fact]
    public void TheExtensionListModelSplitsOutsideQuotesUnescapesAndMarksABrokenElement()
    {
        List<ModelElement> elements = ExtensionListModel.Parse(" , foo; bar=\"a,b\" , permessage-deflate; client_max_window_bits=\"1\\0\",x;,y");
        // "a,b" is no token once unescaped (RFC 6455 §9.1): that element is malformed, and its comma splits nothing.
        Assert.Equal(["", "permessage-deflate", "", "y"], elements.Select(e => e.Name));
        Assert.Equal([true, false, true, false], elements.Select(e => e.Malformed));
        Assert.Equal("10", elements[1].Parameters[0].Value);
    }

    [Theory]
    [InlineData("permessage-deflate; server_max_window_bits=16, permessage-deflate", 1)]
    [InlineData("permessage-deflate; foo, permessage-deflate; server_no_context_takeover; server_no_context_takeover", -1)]
    [InlineData("permessage-deflate; client_max_window_bits, x", 0)] // RFC 7692 §7.1.2.2: no value in an offer is fine
    [InlineData("permessage-deflate; server_max_window_bits", -1)]
    [InlineData("permessage-deflate; server_max_window_bits=08", -1)]
    [InlineData("permessage-deflate; client_no_context_takeover=x", -1)]
    public void TheDeflateModelAcceptsTheFirstValidOffer(string header, int expected) =>
        Assert.Equal(expected, PerMessageDeflateModel.FirstAcceptable(ExtensionListModel.Parse(header)));

    [Theory]
    [InlineData("permessage-deflate; server_no_context_takeover; server_max_window_bits=10", null)]
    [InlineData("permessage-deflate; server_max_window_bits=10", "server_no_context_takeover offered, not answered")]
    [InlineData("permessage-deflate; server_no_context_takeover; server_max_window_bits=11", "server_max_window_bits missing or over the offer")]
    [InlineData("permessage-deflate; server_no_context_takeover; server_max_window_bits=9; client_max_window_bits=9", "client_max_window_bits not offered")]
    [InlineData("permessage-deflate; server_no_context_takeover; server_max_window_bits=9, permessage-deflate", "2 elements")]
    public void TheDeflateModelChecksAResponseAgainstItsOffer(string response, string? problem)
    {
        DeflateModelParameters offer = PerMessageDeflateModel.Read(ExtensionListModel.Parse("permessage-deflate; server_no_context_takeover; server_max_window_bits=10")[0], response: false)!;
        Assert.Equal(problem, PerMessageDeflateModel.ResponseProblem(offer, response, out _));
    }

    [Fact]
    public void TheExtendedConnectResponseModelWantsAnOpen200()
    {
        Assert.Null(ExtendedConnectResponseModel.Problem("200", false, [new("sec-websocket-protocol", "chat")], ["chat"], null));
        Assert.Equal("status", ExtendedConnectResponseModel.Problem("204", false, [], [], null));
        Assert.Equal("end of stream", ExtendedConnectResponseModel.Problem("200", true, [], [], null));
        Assert.Equal("subprotocol", ExtendedConnectResponseModel.Problem("200", false, [new("sec-websocket-protocol", "chat\u00A0")], ["chat"], null));
    }

    [Fact]
    public void TheReferenceInflatesTheRfcExampleAndFindsATamperedOneInvalid()
    {
        byte[] hello = [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00, 0x00, 0xFF, 0xFF]; // RFC 7692 §7.2.3.1 and the tail
        (byte[] output, bool invalid) = ReferenceInflate.Inflate(hello, 100);
        Assert.False(invalid);
        Assert.Equal("Hello", Encoding.ASCII.GetString(output));
        Assert.True(ReferenceInflate.Inflate([0xFF, .. hello], 100).Invalid); // BTYPE 11 is reserved
    }

    [Fact]
    public void InflateRunsThatDifferInAMessageOrInWhereTheyFailedDisagree()
    {
        var run = new InflateRun([[1, 2]], [], InflateOutcome.Ok, 1);
        run.AssertSame(new InflateRun([[1, 2]], [], InflateOutcome.Ok, 1), "same");
        Assert.Throws<OracleFailureException>(() => run.AssertSame(new InflateRun([[1, 3]], [], InflateOutcome.Ok, 1), "x"));
        var invalid = new InflateRun([], [1, 2], InflateOutcome.Invalid, 0);
        invalid.AssertSame(new InflateRun([], [1, 2, 3], InflateOutcome.TooBig, 0), "a message both invalid and too big");
        Assert.Throws<OracleFailureException>(() => invalid.AssertSame(new InflateRun([], [1, 3], InflateOutcome.TooBig, 0), "x"));
        Assert.Throws<OracleFailureException>(() => invalid.AssertSame(new InflateRun([[1, 2]], [], InflateOutcome.Invalid, 1), "x"));
    }

    [Fact]
    public void AnUnmutatedInflateSeedInflatesToItsMessagesInTheTarget()
    {
        var runner = new FuzzRunner(22);
        var target = new InflateTarget();
        CorpusEntry seed = InflateSeeds.All.Single(e => e.Name == "three-shared");
        var outcomes = new Dictionary<string, long>();
        for (ulong draw = 0; draw < 32; draw++)
        {
            Assert.Null(runner.Check(target, seed, seed.Bytes, new FuzzRng(draw), outcomes: outcomes));
        }

        Assert.True(outcomes.GetValueOrDefault("seed inflated to its messages") > 0, string.Join(", ", outcomes.Keys));
    }
}
