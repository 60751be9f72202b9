namespace WebSocketCodec.Tests.Http2;

/// <summary>The HTTP/2 clients' check of the answer to an extended CONNECT (<see cref="ExtendedConnectResponse.Validate"/>).</summary>
public class ExtendedConnectResponseTests
{
    private static readonly WebSocketClientOptions Offer = new() { Subprotocols = ["chat", "superchat"] };

    [Theory]
    [InlineData(new string[0], null)]
    [InlineData(new[] { "chat" }, "chat")]
    [InlineData(new[] { " superchat\t" }, "superchat")] // optional whitespace
    public void A200ThatLeavesTheStreamOpenIsAccepted(string[] subprotocols, string? selected)
    {
        Assert.Equal(selected, ExtendedConnectResponse.Validate("200", null, endStream: false, subprotocols, [], Offer, "server", out DeflateParameters? deflate));
        Assert.Null(deflate);
    }

    [Theory]
    [InlineData("404", 404)]
    [InlineData("204", 204)]
    public void AnotherStatusIsRefusedWithIt(string status, int code)
    {
        var refused = Assert.Throws<WebSocketHandshakeException>(() => ExtendedConnectResponse.Validate(status, "Reason", false, [], [], Offer, "server", out _));
        Assert.Equal(code, refused.StatusCode);
        Assert.Contains($"{status} Reason", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A200ThatEndsTheStreamIsRefused() =>
        Assert.Throws<WebSocketHandshakeException>(() => ExtendedConnectResponse.Validate("200", null, endStream: true, [], [], Offer, "server", out _));

    [Theory]
    [InlineData("other")]
    [InlineData("chat\u00A0")] // a no-break space is not optional whitespace (the h2response fuzz target: it was trimmed)
    [InlineData("\rchat")] // nor is a CR
    [InlineData("")]
    public void ASubprotocolNotOfferedIsRefused(string value) =>
        Assert.Throws<WebSocketHandshakeException>(() => ExtendedConnectResponse.Validate("200", null, false, [value], [], Offer, "server", out _));

    [Fact]
    public void TwoSubprotocolFieldsAreRefused() =>
        Assert.Throws<WebSocketHandshakeException>(() => ExtendedConnectResponse.Validate("200", null, false, ["chat", "chat"], [], Offer, "server", out _));

    [Fact]
    public void AnExtensionIsRefusedUnlessDeflateWasOfferedAndAnsweredAcceptably()
    {
        Assert.Throws<WebSocketHandshakeException>(() => ExtendedConnectResponse.Validate("200", null, false, [], ["permessage-deflate"], Offer, "server", out _));
        WebSocketClientOptions deflate = Offer with { Deflate = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true } };
        Assert.Throws<WebSocketHandshakeException>(() => ExtendedConnectResponse.Validate("200", null, false, [], ["x-foo"], deflate, "server", out _));
        ExtendedConnectResponse.Validate("200", null, false, [], ["permessage-deflate; server_max_window_bits=10"], deflate, "server", out DeflateParameters? settled);
        Assert.Equal(10, settled!.Value.ServerMaxWindowBits);
    }
}
