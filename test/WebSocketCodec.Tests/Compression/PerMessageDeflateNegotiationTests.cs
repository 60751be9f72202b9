namespace WebSocketCodec.Tests.Compression;

/// <summary>permessage-deflate's negotiation (RFC 7692 §5 and §7.1), server and client side.</summary>
public sealed class PerMessageDeflateNegotiationTests
{
    private static readonly PerMessageDeflateOptions Defaults = new() { OwnContextTakeover = true, PeerContextTakeover = true };

    [Theory]
    // Chromium's and node ws's offer; .NET ClientWebSocket's with DangerousDeflateOptions.
    [InlineData("permessage-deflate; client_max_window_bits", "permessage-deflate", false, false, 15, 15)]
    [InlineData("permessage-deflate", "permessage-deflate", false, false, 15, 15)]
    [InlineData("permessage-deflate; client_max_window_bits=15; server_max_window_bits=15", "permessage-deflate; server_max_window_bits=15", false, false, 15, 15)]
    [InlineData("permessage-deflate; server_no_context_takeover", "permessage-deflate; server_no_context_takeover", true, false, 15, 15)]
    [InlineData("permessage-deflate; client_no_context_takeover", "permessage-deflate; client_no_context_takeover", false, true, 15, 15)]
    [InlineData("permessage-deflate; client_max_window_bits=10", "permessage-deflate", false, false, 15, 10)]
    // A smaller server window is accepted: the server then compresses only messages that fit it, without context.
    [InlineData("permessage-deflate; server_max_window_bits=10", "permessage-deflate; server_no_context_takeover; server_max_window_bits=10", true, false, 10, 15)]
    [InlineData("PerMessage-Deflate; Server_No_Context_Takeover", "permessage-deflate; server_no_context_takeover", true, false, 15, 15)]
    [InlineData("permessage-deflate; server_max_window_bits=\"12\"", "permessage-deflate; server_no_context_takeover; server_max_window_bits=12", true, false, 12, 15)]
    // RFC 6455 §9.1: a quoted value counts once unescaped (found by the negotiation fuzz target: it was declined).
    [InlineData("permessage-deflate; server_max_window_bits=\"1\\2\"", "permessage-deflate; server_no_context_takeover; server_max_window_bits=12", true, false, 12, 15)]
    public void TheServerAcceptsASupportedOffer(string offer, string answer, bool serverNoContext, bool clientNoContext, int serverBits, int clientBits)
    {
        Assert.True(PerMessageDeflateNegotiation.TryAccept(offer, Defaults, out DeflateParameters parameters, out string? accepted));

        Assert.Equal(answer, accepted);
        Assert.Equal(new DeflateParameters(serverNoContext, clientNoContext, serverBits, clientBits), parameters);
    }

    [Theory]
    // The defaults (no context takeover either way, chosen from the memory table in bench/results/deflate-summary.md):
    // every offer that allows it is answered with both *_no_context_takeover parameters.
    [InlineData("permessage-deflate; client_max_window_bits", "permessage-deflate; server_no_context_takeover; client_no_context_takeover")]
    [InlineData("permessage-deflate", "permessage-deflate; server_no_context_takeover; client_no_context_takeover")]
    [InlineData("permessage-deflate; server_max_window_bits=10", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10")]
    public void TheDefaultServerAsksForNoContextTakeoverEitherWay(string offer, string answer)
    {
        Assert.True(PerMessageDeflateNegotiation.TryAccept(offer, new PerMessageDeflateOptions(), out DeflateParameters parameters, out string? accepted));

        Assert.Equal(answer, accepted);
        Assert.True(parameters.ServerNoContextTakeover && parameters.ClientNoContextTakeover);
        Assert.False(parameters.CompressorKeepsContext(WebSocketRole.Server));
        Assert.False(parameters.DecompressorKeepsContext(WebSocketRole.Server));
    }

    [Fact]
    public void TheDefaultClientOffersNoContextTakeoverEitherWay() =>
        Assert.Equal(
            "permessage-deflate; client_max_window_bits; client_no_context_takeover; server_no_context_takeover",
            PerMessageDeflateNegotiation.CreateOffer(new PerMessageDeflateOptions()));

    [Theory]
    [InlineData("permessage-deflate; server_no_context_takeover; server_no_context_takeover")] // repeated
    [InlineData("permessage-deflate; client_max_window_bits; client_max_window_bits=10")]
    [InlineData("permessage-deflate; server_max_window_bits")] // a value is required
    [InlineData("permessage-deflate; server_max_window_bits=7")] // below 8
    [InlineData("permessage-deflate; server_max_window_bits=16")]
    [InlineData("permessage-deflate; server_max_window_bits=010")] // leading zero
    [InlineData("permessage-deflate; server_max_window_bits=+9")]
    [InlineData("permessage-deflate; client_max_window_bits=abc")]
    [InlineData("permessage-deflate; server_no_context_takeover=1")] // no value allowed
    [InlineData("permessage-deflate; unknown_parameter")]
    [InlineData("permessage-deflate;")]
    [InlineData("x-webkit-deflate-frame")]
    [InlineData("")]
    public void TheServerDeclinesAnOfferItCannotAccept(string offer)
    {
        Assert.False(PerMessageDeflateNegotiation.TryAccept(offer, Defaults, out _, out string? answer));
        Assert.Null(answer);
    }

    [Fact]
    public void TheServerAcceptsTheFirstSupportedOfferInTheClientsOrder()
    {
        const string Offers = "permessage-deflate; server_max_window_bits=10; bogus, permessage-deflate; client_no_context_takeover, permessage-deflate";

        Assert.True(PerMessageDeflateNegotiation.TryAccept(Offers, Defaults, out DeflateParameters parameters, out string? answer));

        Assert.Equal("permessage-deflate; client_no_context_takeover", answer);
        Assert.True(parameters.ClientNoContextTakeover);
    }

    [Fact]
    public void TheServersOptionsAddNoContextTakeoverAndLimitTheClientsWindowOnlyWhenOffered()
    {
        var options = new PerMessageDeflateOptions { OwnContextTakeover = false, PeerContextTakeover = false, PeerMaxWindowBits = 9 };

        Assert.True(PerMessageDeflateNegotiation.TryAccept("permessage-deflate; client_max_window_bits", options, out DeflateParameters limited, out string? answer));
        Assert.Equal("permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits=9", answer);
        Assert.Equal(new DeflateParameters(true, true, 15, 9), limited);

        Assert.True(PerMessageDeflateNegotiation.TryAccept("permessage-deflate", options, out DeflateParameters unlimited, out answer));
        Assert.Equal("permessage-deflate; server_no_context_takeover; client_no_context_takeover", answer); // not offered: not sent
        Assert.Equal(15, unlimited.ClientMaxWindowBits);
    }

    [Theory]
    [InlineData(true, true, null, "permessage-deflate; client_max_window_bits")]
    [InlineData(false, true, null, "permessage-deflate; client_max_window_bits; client_no_context_takeover")]
    [InlineData(true, false, 12, "permessage-deflate; client_max_window_bits; server_no_context_takeover; server_max_window_bits=12")]
    public void TheClientOffersWhatItsOptionsSay(bool own, bool peer, int? peerBits, string offer)
    {
        var options = new PerMessageDeflateOptions { OwnContextTakeover = own, PeerContextTakeover = peer, PeerMaxWindowBits = peerBits };

        Assert.Equal(offer, PerMessageDeflateNegotiation.CreateOffer(options));
        Assert.True(PerMessageDeflateNegotiation.TryAccept(offer, new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }, out _, out _)); // and our server takes it
    }

    [Theory]
    [InlineData("permessage-deflate", false, false, 15, 15)]
    [InlineData("permessage-deflate; server_no_context_takeover; client_no_context_takeover", true, true, 15, 15)]
    [InlineData("permessage-deflate; client_max_window_bits=9", false, false, 15, 9)]
    [InlineData("permessage-deflate; server_max_window_bits=11", false, false, 11, 15)]
    [InlineData("permessage-deflate; client_max_window_bits=\"\\9\"", false, false, 15, 9)] // unescaped, 9
    public void TheClientAcceptsAValidAnswer(string answer, bool serverNoContext, bool clientNoContext, int serverBits, int clientBits)
    {
        Assert.True(PerMessageDeflateNegotiation.TryParseAnswer(answer, Defaults, out DeflateParameters parameters, out string? error), error);
        Assert.Equal(new DeflateParameters(serverNoContext, clientNoContext, serverBits, clientBits), parameters);
    }

    [Theory]
    [InlineData("permessage-deflate, permessage-deflate")] // two answers to one offer
    [InlineData("x-webkit-deflate-frame")]
    [InlineData("permessage-deflate; client_max_window_bits")] // a value is required in an answer
    [InlineData("permessage-deflate; server_no_context_takeover; server_no_context_takeover")]
    [InlineData("permessage-deflate; mystery")]
    [InlineData("permessage-deflate; server_max_window_bits=20")]
    [InlineData("permessage-deflate;")]
    public void TheClientFailsOnABadAnswer(string answer)
    {
        Assert.False(PerMessageDeflateNegotiation.TryParseAnswer(answer, Defaults, out _, out string? error));
        Assert.False(string.IsNullOrEmpty(error));
    }

    [Fact]
    public void TheClientFailsWhenTheServerIgnoresWhatItRequired()
    {
        var options = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = false, PeerMaxWindowBits = 10 };

        Assert.False(PerMessageDeflateNegotiation.TryParseAnswer("permessage-deflate; server_max_window_bits=10", options, out _, out string? error));
        Assert.Contains("server_no_context_takeover", error, StringComparison.Ordinal);
        Assert.False(PerMessageDeflateNegotiation.TryParseAnswer("permessage-deflate; server_no_context_takeover", options, out _, out error));
        Assert.Contains("server_max_window_bits=10", error, StringComparison.Ordinal);
        Assert.True(PerMessageDeflateNegotiation.TryParseAnswer("permessage-deflate; server_no_context_takeover; server_max_window_bits=9", options, out _, out error), error);
    }

    [Fact]
    public void ACompressorWithASmallWindowCompressesOnlyMessagesThatFitWithoutContext()
    {
        var parameters = new DeflateParameters(ServerNoContextTakeover: true, ClientNoContextTakeover: false, ServerMaxWindowBits: 10, ClientMaxWindowBits: 15);

        Assert.Equal(1024, parameters.MaxCompressedMessageLength(WebSocketRole.Server));
        Assert.False(parameters.CompressorKeepsContext(WebSocketRole.Server));
        Assert.Equal(int.MaxValue, parameters.MaxCompressedMessageLength(WebSocketRole.Client));
        Assert.True(parameters.CompressorKeepsContext(WebSocketRole.Client));
        Assert.False(parameters.DecompressorKeepsContext(WebSocketRole.Client)); // the server's messages start afresh
    }
}
