using WebSocketCodec.Tests.Infrastructure;

namespace WebSocketCodec.Tests.Http2;

/// <summary>RFC 8441 section 4 and 5 rules of <see cref="WebSocketExtendedConnect.Validate"/>, each with its status.</summary>
public class ExtendedConnectValidationTests
{
    [Fact]
    public void TheRfcExampleIsAccepted()
    {
        var headers = new FieldList(("Host", "server.example.com"), ("sec-websocket-version", "13"), ("origin", "http://www.example.com"),
            ("sec-websocket-protocol", "chat, superchat"), ("sec-websocket-extensions", "permessage-deflate"));
        HandshakeFailure failure = WebSocketExtendedConnect.Validate("CONNECT", "websocket", headers, out WebSocketUpgradeRequest? request);
        Assert.False(failure.IsFailure);
        Assert.True(request!.IsExtendedConnect);
        Assert.Equal(string.Empty, request.Key);
        Assert.Equal("server.example.com", request.Host);
        Assert.Equal("http://www.example.com", request.Origin);
        Assert.Equal(["chat", "superchat"], request.Subprotocols);
        Assert.Equal("permessage-deflate", request.Extensions);
    }

    [Theory]
    [InlineData("GET", "websocket", "13", false)]
    [InlineData("POST", "websocket", "13", false)]
    [InlineData("CONNECT", "connect-udp", "13", false)]
    [InlineData("CONNECT", "websockets", "13", false)]
    [InlineData("CONNECT", "websocket", null, true)]
    [InlineData("CONNECT", "websocket", "12", true)]
    [InlineData("CONNECT", "websocket", "8, 13", true)]
    [InlineData("CONNECT", "websocket", "", true)]
    public void EveryRuleHasA400(string method, string? protocol, string? version, bool namesVersion)
    {
        var headers = version is null ? new FieldList(("Host", "h")) : new FieldList(("Host", "h"), ("sec-websocket-version", version));
        HandshakeFailure failure = WebSocketExtendedConnect.Validate(method, protocol, headers, out WebSocketUpgradeRequest? request);
        Assert.Equal(400, failure.StatusCode);
        Assert.Equal(namesVersion, failure.NeedsVersionHeader);
        Assert.Null(request);
        Assert.False(string.IsNullOrWhiteSpace(failure.Message));
    }

    [Fact]
    public void AClassicConnectIsNotImplemented()
    {
        // A CONNECT without :protocol asks for a tunnel (RFC 9113 section 8.5): 501, as Kestrel answers it.
        HandshakeFailure failure = WebSocketExtendedConnect.Validate("CONNECT", null, new FieldList(("Host", "h"), ("sec-websocket-version", "13")), out WebSocketUpgradeRequest? request);
        Assert.Equal(501, failure.StatusCode);
        Assert.False(failure.NeedsVersionHeader);
        Assert.Null(request);
    }

    [Fact]
    public void TwoVersionFieldsAreRefused() =>
        Assert.Equal(400, WebSocketExtendedConnect.Validate("CONNECT", "websocket", new FieldList(("sec-websocket-version", "13"), ("sec-websocket-version", "13")), out _).StatusCode);

    [Theory]
    [InlineData("chat/1")]
    [InlineData("ch at")]
    [InlineData("chat, \"quoted\"")]
    public void AMalformedSubprotocolListIsRefused(string offer)
    {
        var headers = new FieldList(("sec-websocket-version", "13"), ("sec-websocket-protocol", offer));
        HandshakeFailure failure = WebSocketExtendedConnect.Validate("CONNECT", "websocket", headers, out _);
        Assert.Equal(400, failure.StatusCode);
        Assert.False(failure.NeedsVersionHeader);
    }

    [Fact]
    public void TheProtocolTokenIsCaseInsensitiveAndAuthorityIsOptional()
    {
        HandshakeFailure failure = WebSocketExtendedConnect.Validate("CONNECT", "WebSocket", new FieldList(("sec-websocket-version", " 13 ")), out WebSocketUpgradeRequest? request);
        Assert.False(failure.IsFailure);
        Assert.Equal(string.Empty, request!.Host);
        Assert.Empty(request.Subprotocols);
    }
}
