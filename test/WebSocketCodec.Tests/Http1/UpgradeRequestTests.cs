using System.Buffers;
using System.Text;

namespace WebSocketCodec.Tests.Http1;

public class UpgradeRequestTests
{
    private const string Key = "dGhlIHNhbXBsZSBub25jZQ==";

    private static HandshakeFailure Validate(string text, out WebSocketUpgradeRequest? request)
    {
        Assert.Equal(OperationStatus.Done, HttpHeadParser.TryParse(System.Text.Encoding.Latin1.GetBytes(text), out HttpHead? head, out _, out _));
        return WebSocketUpgradeRequest.Validate(head!.Method, head.Version, head, out request);
    }

    private static string Request(string method = "GET", string version = "HTTP/1.1", string? host = "Host: server.example.com\r\n",
        string upgrade = "Upgrade: websocket\r\n", string connection = "Connection: Upgrade\r\n",
        string wsVersion = "Sec-WebSocket-Version: 13\r\n", string key = "Sec-WebSocket-Key: " + Key + "\r\n", string extra = "") =>
        $"{method} /chat {version}\r\n{host}{upgrade}{connection}{wsVersion}{key}{extra}\r\n";

    [Fact]
    public void TheRfcExampleIsAccepted()
    {
        HandshakeFailure failure = Validate(Request(extra:
            "Origin: http://example.com\r\nSec-WebSocket-Protocol: chat, superchat\r\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"),
            out WebSocketUpgradeRequest? request);
        Assert.False(failure.IsFailure);
        Assert.Equal(Key, request!.Key);
        Assert.Equal("server.example.com", request.Host);
        Assert.Equal("http://example.com", request.Origin);
        Assert.Equal(["chat", "superchat"], request.Subprotocols);
        Assert.Equal("permessage-deflate; client_max_window_bits", request.Extensions);
    }

    [Theory]
    [InlineData("upgrade: WebSocket\r\n", "connection: keep-alive, UPGRADE\r\n")]
    [InlineData("Upgrade: h2c, websocket\r\n", "Connection: Upgrade, HTTP2-Settings\r\n")]
    public void TokenListsAreCaseInsensitive(string upgrade, string connection) =>
        Assert.False(Validate(Request(upgrade: upgrade, connection: connection), out _).IsFailure);

    [Theory]
    [InlineData("POST", null, null, null, null, null, null, 405)]
    [InlineData("get", null, null, null, null, null, null, 405)]
    [InlineData(null, "HTTP/1.0", null, null, null, null, null, 400)]
    [InlineData(null, "HTTP/2.0", null, null, null, null, null, 400)]
    [InlineData(null, null, "", null, null, null, null, 400)]
    [InlineData(null, null, "Host: a\r\nHost: b\r\n", null, null, null, null, 400)]
    [InlineData(null, null, "Host: a, b\r\n", null, null, null, null, 400)]
    [InlineData(null, null, null, "", null, null, null, 400)]
    [InlineData(null, null, null, "Upgrade: h2c\r\n", null, null, null, 400)]
    [InlineData(null, null, null, null, "", null, null, 400)]
    [InlineData(null, null, null, null, "Connection: keep-alive\r\n", null, null, 400)]
    [InlineData(null, null, null, null, null, "", null, 400)]
    [InlineData(null, null, null, null, null, "Sec-WebSocket-Version: 8\r\n", null, 426)]
    [InlineData(null, null, null, null, null, "Sec-WebSocket-Version: 13, 8\r\n", null, 426)]
    [InlineData(null, null, null, null, null, null, "", 400)]
    [InlineData(null, null, null, null, null, null, "Sec-WebSocket-Key: short\r\n", 400)]
    [InlineData(null, null, null, null, null, null, "Sec-WebSocket-Key: " + Key + "\r\nSec-WebSocket-Key: " + Key + "\r\n", 400)]
    public void EachRuleRefusesWithItsStatus(string? method, string? version, string? host, string? upgrade, string? connection, string? wsVersion, string? key, int status)
    {
        string text = Request(
            method ?? "GET", version ?? "HTTP/1.1", host ?? "Host: server.example.com\r\n", upgrade ?? "Upgrade: websocket\r\n",
            connection ?? "Connection: Upgrade\r\n", wsVersion ?? "Sec-WebSocket-Version: 13\r\n", key ?? "Sec-WebSocket-Key: " + Key + "\r\n");
        HandshakeFailure failure = Validate(text, out WebSocketUpgradeRequest? request);
        Assert.Equal(status, failure.StatusCode);
        Assert.False(string.IsNullOrEmpty(failure.Message));
        Assert.Null(request);
    }

    [Theory]
    [InlineData("Content-Length: 5\r\n")]
    [InlineData("Transfer-Encoding: chunked\r\n")]
    [InlineData("Sec-WebSocket-Protocol: chat, bad token\r\n")]
    [InlineData("Sec-WebSocket-Protocol: \"quoted\"\r\n")]
    public void BodiesAndBadSubprotocolListsAreRefused(string extra) =>
        Assert.Equal(400, Validate(Request(extra: extra), out _).StatusCode);

    [Fact]
    public void AZeroContentLengthIsAllowed() =>
        Assert.False(Validate(Request(extra: "Content-Length: 0\r\n"), out _).IsFailure);
}
