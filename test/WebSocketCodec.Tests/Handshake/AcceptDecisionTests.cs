using WebSocketCodec.Tests.Infrastructure;

namespace WebSocketCodec.Tests.Handshake;

/// <summary><see cref="WebSocketAcceptDecision"/>, the accept decision every host makes: each refusal with its status,
/// message and header fields (in the order of the checks), the subprotocol chosen in the server's order, permessage-deflate
/// offers with parameters, and the answer's fields over HTTP/1.1 and HTTP/2.</summary>
public sealed class AcceptDecisionTests
{
    private const string Key = "dGhlIHNhbXBsZSBub25jZQ==";
    private const string Accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="; // RFC 6455 section 1.3

    private static readonly (string, string)[] Upgrade =
        [("Host", "server.example.com"), ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Key", Key)];

    private static WebSocketHandshakeFacts Http1(string method = "GET", string version = "HTTP/1.1", params (string, string)[] more) =>
        new() { Method = method, HttpVersion = version, Headers = new FieldList([.. Upgrade, .. more]) };

    private static WebSocketHandshakeFacts Http2(string method = "CONNECT", string? protocol = "websocket", params (string, string)[] fields) =>
        new() { Method = method, IsMultiplexed = true, ConnectProtocol = protocol, Headers = new FieldList([("Host", "server.example.com"), .. fields]) };

    private static (string, string)[] Fields(WebSocketAcceptDecision decision) => [.. decision.ResponseHeaders.Select(f => (f.Key, f.Value))];

    [Fact]
    public void AnUpgradeIsAnsweredWith101AndTheAcceptValue()
    {
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(Http1());
        Assert.True(decision.IsAccepted);
        Assert.Equal(101, decision.StatusCode);
        Assert.False(decision.IsMultiplexed);
        Assert.Equal(Key, decision.Request!.Key);
        Assert.Null(decision.Subprotocol);
        Assert.Null(decision.Deflate);
        Assert.Null(decision.ResponseBody);
        Assert.Equal([("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", Accept)], Fields(decision));
    }

    [Fact]
    public void AnExtendedConnectIsAnsweredWith200AndNoAcceptValue()
    {
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(Http2(fields: [("sec-websocket-version", "13"), ("sec-websocket-protocol", "chat")]),
            new WebSocketAcceptOptions { Subprotocols = ["chat"] });
        Assert.True(decision.IsAccepted);
        Assert.Equal(200, decision.StatusCode);
        Assert.True(decision.IsMultiplexed);
        Assert.True(decision.Request!.IsExtendedConnect);
        Assert.Equal([("sec-websocket-protocol", "chat")], Fields(decision));
    }

    [Theory]
    // HTTP/1.1 (RFC 6455 section 4.2.1), in the order checked.
    [InlineData("POST", "HTTP/1.1", null, null, 405, "A WebSocket opening handshake must use GET.")]
    [InlineData("GET", "HTTP/1.0", null, null, 400, "A WebSocket opening handshake needs HTTP/1.1.")]
    [InlineData("GET", "HTTP/1.1", "Sec-WebSocket-Version", "8", 426, "Only WebSocket version 13 is supported.")]
    [InlineData("GET", "HTTP/1.1", "Sec-WebSocket-Protocol", "chat/1", 400, "The Sec-WebSocket-Protocol header must be a list of tokens.")]
    [InlineData("GET", "HTTP/1.1", "Content-Length", "5", 400, "A WebSocket opening handshake has no body.")]
    [InlineData("GET", "HTTP/1.1", "Origin", "https://evil.example", 403, "The origin 'https://evil.example' is not allowed.")]
    public void EachHttp1RefusalHasItsStatusAndMessage(string method, string version, string? name, string? value, int status, string message)
    {
        (string, string)[] more = name is null ? [] : [(name, value!)];
        var facts = new WebSocketHandshakeFacts
        {
            Method = method, HttpVersion = version,
            Headers = new FieldList([.. Upgrade.Where(f => name is null || !string.Equals(f.Item1, name, StringComparison.OrdinalIgnoreCase)), .. more]),
        };
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(facts, new WebSocketAcceptOptions { AllowedOrigins = ["https://good.example"] });
        Assert.False(decision.IsAccepted);
        Assert.Equal(status, decision.StatusCode);
        Assert.Equal(message, decision.Failure.Message);
        Assert.Equal(message + "\n", decision.ResponseBody);
        Assert.Null(decision.Subprotocol);
        Assert.Null(decision.Deflate);
        (string, string)[] expected = status switch
        {
            426 => [("Sec-WebSocket-Version", "13"), ("Upgrade", "websocket"), ("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close")],
            405 => [("Allow", "GET"), ("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close")],
            _ => [("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close")],
        };
        Assert.Equal(expected, Fields(decision));
    }

    [Theory]
    [InlineData("GET", "websocket", "13", 400, false)]
    [InlineData("CONNECT", null, "13", 501, false)] // a tunnel request
    [InlineData("CONNECT", "connect-udp", "13", 400, false)]
    [InlineData("CONNECT", "websocket", "12", 400, true)]
    [InlineData("CONNECT", "websocket", null, 400, true)]
    public void EachExtendedConnectRefusalHasItsStatusAndNamesTheVersionWhenItIsAboutIt(string method, string? protocol, string? version, int status, bool namesVersion)
    {
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(Http2(method, protocol, version is null ? [] : [("sec-websocket-version", version)]));
        Assert.Equal(status, decision.StatusCode);
        Assert.True(decision.IsMultiplexed);
        (string, string)[] expected = namesVersion
            ? [("sec-websocket-version", "13"), ("content-type", "text/plain; charset=utf-8")]
            : [("content-type", "text/plain; charset=utf-8")];
        Assert.Equal(expected, Fields(decision)); // no connection-specific field, lowercase names
    }

    [Fact]
    public void AnExtendedConnectThatEndedItsStreamIsRefused()
    {
        WebSocketHandshakeFacts facts = Http2(fields: [("sec-websocket-version", "13")]);
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(new WebSocketHandshakeFacts
        {
            Method = facts.Method, IsMultiplexed = true, ConnectProtocol = facts.ConnectProtocol, Headers = facts.Headers, StreamEnded = true,
        });
        Assert.Equal(400, decision.StatusCode);
        Assert.Equal("The extended CONNECT ended its stream: there is no websocket to carry.", decision.Failure.Message);
        Assert.NotNull(decision.Request); // it passed the request's own rules
    }

    [Fact]
    public void ARequestThatEndsItsStreamStillFailsItsOwnRulesFirst()
    {
        var facts = new WebSocketHandshakeFacts { Method = "CONNECT", IsMultiplexed = true, Headers = new FieldList(), StreamEnded = true };
        Assert.Equal(501, WebSocketAcceptDecision.Decide(facts).StatusCode);
    }

    [Fact]
    public void AConnectionThatCannotBeUpgradedIsRefusedAfterTheRequestsOwnRules()
    {
        WebSocketHandshakeFacts valid = Http1();
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(new WebSocketHandshakeFacts
        {
            Method = valid.Method, HttpVersion = valid.HttpVersion, Headers = valid.Headers, CannotUpgrade = true, OverCapacity = true,
        });
        Assert.Equal(400, decision.StatusCode);
        Assert.Equal("This connection cannot be upgraded.", decision.Failure.Message);

        WebSocketAcceptDecision wrongMethod = WebSocketAcceptDecision.Decide(new WebSocketHandshakeFacts
        {
            Method = "PUT", HttpVersion = valid.HttpVersion, Headers = valid.Headers, CannotUpgrade = true,
        });
        Assert.Equal(405, wrongMethod.StatusCode);
    }

    [Theory]
    [InlineData("/chat?room=1", true, 0)]
    [InlineData("/other", false, 404)]
    [InlineData("*", true, 404)] // not origin-form: never served
    [InlineData("http://server.example.com/chat", true, 404)]
    public void TheRouteIsAskedOnlyForAnOriginFormTarget(string target, bool served, int status)
    {
        var asked = new List<string>();
        WebSocketHandshakeFacts valid = Http1();
        var facts = new WebSocketHandshakeFacts { Method = valid.Method, HttpVersion = valid.HttpVersion, Headers = valid.Headers, Target = target };
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(facts, null, (request, path) =>
        {
            Assert.Equal(Key, request.Key);
            asked.Add(path);
            return served;
        });
        Assert.Equal(status == 0 ? 101 : status, decision.StatusCode);
        Assert.Equal(target.StartsWith('/') ? [target] : [], asked);
        if (status == 404)
        {
            Assert.Equal($"No websocket is served at '{target}'.", decision.Failure.Message);
        }
    }

    [Fact]
    public void NotFoundComesBeforeCapacityAndCapacityBeforeTheOrigin()
    {
        (string, string)[] evil = [("Origin", "https://evil.example")];
        var options = new WebSocketAcceptOptions { AllowedOrigins = ["https://good.example"] };
        WebSocketAcceptDecision Decide(string target, bool full) => WebSocketAcceptDecision.Decide(
            new WebSocketHandshakeFacts { Method = "GET", HttpVersion = "HTTP/1.1", Headers = new FieldList([.. Upgrade, .. evil]), Target = target, OverCapacity = full },
            options, (_, path) => path == "/ws");

        Assert.Equal(404, Decide("/nowhere", full: true).StatusCode);
        WebSocketAcceptDecision full = Decide("/ws", full: true);
        Assert.Equal(503, full.StatusCode);
        Assert.Equal(HandshakeFailure.OverCapacity, full.Failure);
        Assert.Equal(403, Decide("/ws", full: false).StatusCode);
    }

    [Theory]
    [InlineData("v1.chat, v2.chat", "v2.chat")] // the server's order, not the client's
    [InlineData("v1.chat", "v1.chat")]
    [InlineData("mqtt, v1.chat", "v1.chat")]
    [InlineData("V2.CHAT", null)] // names compare case-sensitively
    [InlineData("mqtt", null)]
    public void TheSubprotocolIsTheServersMostPreferredOneOffered(string offered, string? selected)
    {
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(Http1(more: [("Sec-WebSocket-Protocol", offered)]),
            new WebSocketAcceptOptions { Subprotocols = ["v2.chat", "v1.chat"] });
        Assert.True(decision.IsAccepted);
        Assert.Equal(selected, decision.Subprotocol);
        Assert.Equal(selected, decision.ResponseHeaders.SingleOrDefault(f => f.Key == "Sec-WebSocket-Protocol").Value);
    }

    [Fact]
    public void ASelectorPicksTheSubprotocolAndMayNotPickOneNotOffered()
    {
        var picksLast = new WebSocketAcceptOptions { Subprotocols = ["a"], SelectSubprotocol = request => request.Subprotocols[^1] };
        Assert.Equal("c", WebSocketAcceptDecision.Decide(Http1(more: [("Sec-WebSocket-Protocol", "a, b, c")]), picksLast).Subprotocol);

        var picksOther = new WebSocketAcceptOptions { SelectSubprotocol = _ => "z" };
        Assert.Throws<InvalidOperationException>(() => WebSocketAcceptDecision.Decide(Http1(more: [("Sec-WebSocket-Protocol", "a")]), picksOther));
    }

    [Theory]
    [InlineData("permessage-deflate; client_max_window_bits", "permessage-deflate", false, false, 15, 15)]
    [InlineData("permessage-deflate; client_max_window_bits=10", "permessage-deflate", false, false, 15, 10)]
    [InlineData("permessage-deflate; server_max_window_bits=10", "permessage-deflate; server_no_context_takeover; server_max_window_bits=10", true, false, 10, 15)]
    [InlineData("x-webkit-deflate-frame, permessage-deflate; client_no_context_takeover", "permessage-deflate; client_no_context_takeover", false, true, 15, 15)]
    public void ADeflateOfferIsAnsweredWithItsParameters(string offer, string answer, bool serverNoContext, bool clientNoContext, int serverBits, int clientBits)
    {
        var options = new WebSocketAcceptOptions { Deflate = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true } };
        WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(Http1(more: [("Sec-WebSocket-Extensions", offer)]), options);
        Assert.Equal(new DeflateParameters(serverNoContext, clientNoContext, serverBits, clientBits), decision.Deflate);
        Assert.Equal(("Sec-WebSocket-Extensions", answer), Fields(decision)[^1]);

        WebSocketAcceptDecision overHttp2 = WebSocketAcceptDecision.Decide(Http2(fields: [("sec-websocket-version", "13"), ("sec-websocket-extensions", offer)]), options);
        Assert.Equal(decision.Deflate, overHttp2.Deflate);
        Assert.Equal([("sec-websocket-extensions", answer)], Fields(overHttp2));
    }

    [Theory]
    [InlineData(null)] // not offered
    [InlineData("permessage-deflate; server_max_window_bits=7")] // no window below 8
    [InlineData("permessage-deflate; bogus")]
    public void NoDeflateIsAnsweredWhenItIsNotOfferedAcceptablyOrNotEnabled(string? offer)
    {
        (string, string)[] more = offer is null ? [] : [("Sec-WebSocket-Extensions", offer)];
        var enabled = new WebSocketAcceptOptions { Deflate = new PerMessageDeflateOptions() };
        foreach (WebSocketAcceptOptions options in new[] { enabled, new WebSocketAcceptOptions() })
        {
            WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(Http1(more: more), options);
            Assert.True(decision.IsAccepted);
            Assert.Null(decision.Deflate);
            Assert.DoesNotContain(decision.ResponseHeaders, f => f.Key == "Sec-WebSocket-Extensions");
        }
    }

    [Fact]
    public void AnApplicationsAcceptTakesAnOfferedSubprotocolAndNoExtension()
    {
        WebSocketAcceptDecision validated = WebSocketAcceptDecision.Decide(Http1(more: [("Sec-WebSocket-Protocol", "a, b"), ("Sec-WebSocket-Extensions", "permessage-deflate")]),
            new WebSocketAcceptOptions { Deflate = new PerMessageDeflateOptions() });
        WebSocketAcceptDecision accepted = WebSocketAcceptDecision.Accept(validated.Request!, "b");
        Assert.Equal([("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", Accept), ("Sec-WebSocket-Protocol", "b")], Fields(accepted));
        Assert.Null(accepted.Deflate);
        ArgumentException error = Assert.Throws<ArgumentException>(() => WebSocketAcceptDecision.Accept(validated.Request!, "c"));
        Assert.Equal("subprotocol", error.ParamName);
    }

    [Fact]
    public void ARefusalOfTheHostsOwnCarriesItsStatusAndBody()
    {
        WebSocketAcceptDecision timeout = WebSocketAcceptDecision.Refuse(new HandshakeFailure(408, "No complete request head in time."));
        Assert.Equal(408, timeout.StatusCode);
        Assert.Null(timeout.Request);
        Assert.Equal("No complete request head in time.\n", timeout.ResponseBody);
        Assert.Throws<ArgumentException>(() => WebSocketAcceptDecision.Refuse(default));
    }

    [Fact]
    public void AnHttp1RequestWithoutAVersionIsAnError() =>
        Assert.Throws<ArgumentException>(() => WebSocketAcceptDecision.Decide(new WebSocketHandshakeFacts { Method = "GET", Headers = new FieldList() }));

    [Fact]
    public void TheHttp1WriterWritesTheDecisionAsAResponse()
    {
        var output = new System.Buffers.ArrayBufferWriter<byte>();
        Http1Handshake.WriteResponse(output, WebSocketAcceptDecision.Decide(Http1(method: "PUT")));
        string text = System.Text.Encoding.UTF8.GetString(output.WrittenSpan);
        const string Body = "A WebSocket opening handshake must use GET.\n";
        Assert.Equal(
            $"HTTP/1.1 405 Method Not Allowed\r\nAllow: GET\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: {Body.Length}\r\n\r\n{Body}",
            text);
        Assert.Throws<ArgumentException>(() => Http1Handshake.WriteResponse(output, WebSocketAcceptDecision.Decide(Http2())));
    }
}
