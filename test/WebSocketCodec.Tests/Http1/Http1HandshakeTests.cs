using System.Buffers;

namespace WebSocketCodec.Tests.Http1;

public class Http1HandshakeTests
{
    private const string Key = "dGhlIHNhbXBsZSBub25jZQ==";

    private static string Write(Action<IBufferWriter<byte>> write)
    {
        var output = new ArrayBufferWriter<byte>();
        write(output);
        return System.Text.Encoding.UTF8.GetString(output.WrittenSpan);
    }

    private static HttpHead Parse(string text)
    {
        Assert.Equal(OperationStatus.Done, HttpHeadParser.TryParse(System.Text.Encoding.UTF8.GetBytes(text), out HttpHead? head, out int length, out _));
        Assert.Equal(System.Text.Encoding.UTF8.GetByteCount(text), length);
        return head!;
    }

    [Fact]
    public void TheAcceptCarriesTheRfcValueAndTheSubprotocolOnlyWhenGiven()
    {
        string accept = Write(o => Http1Handshake.WriteAccept(o, Key));
        Assert.Equal("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n", accept);
        string withProtocol = Write(o => Http1Handshake.WriteAccept(o, Key, "chat"));
        Assert.Equal("chat", Parse(withProtocol)["Sec-WebSocket-Protocol"]);
    }

    [Theory]
    [InlineData(400)]
    [InlineData(403)]
    [InlineData(405)]
    [InlineData(426)]
    [InlineData(431)]
    public void RejectionsAreCompleteResponsesThatClose(int status)
    {
        string text = Write(o => Http1Handshake.WriteRejection(o, new HandshakeFailure(status, "nope ü")));
        int end = text.IndexOf("\r\n\r\n", StringComparison.Ordinal) + 4;
        HttpHead head = Parse(text[..end]);
        Assert.Equal(status.ToString(System.Globalization.CultureInfo.InvariantCulture), head.Status);
        Assert.Equal("close", head["Connection"]);
        Assert.Equal(System.Text.Encoding.UTF8.GetByteCount(text[end..]), int.Parse(head["Content-Length"]!, System.Globalization.CultureInfo.InvariantCulture));
        Assert.Equal(status == 426 ? "13" : null, head["Sec-WebSocket-Version"]);
        Assert.Equal(status == 405 ? "GET" : null, head["Allow"]);
    }

    [Fact]
    public void AWrittenRequestValidatesAsAnUpgrade()
    {
        string text = Write(o => Http1Handshake.WriteRequest(o, "example.com:8080", "/ws?x=1", Key, ["v2", "v1"], [new("Origin", "https://example.com")]));
        HttpHead head = Parse(text);
        Assert.False(WebSocketUpgradeRequest.Validate(head.Method, head.Version, head, out WebSocketUpgradeRequest? request).IsFailure);
        Assert.Equal("/ws?x=1", head.Target);
        Assert.Equal("example.com:8080", request!.Host);
        Assert.Equal(["v2", "v1"], request.Subprotocols);
        Assert.Equal("https://example.com", request.Origin);
    }

    [Theory]
    [InlineData("X-Evil", "a\r\nInjected: yes")]
    [InlineData("Bad Name", "x")]
    public void HeaderInjectionIsRefused(string name, string value) =>
        Assert.Throws<ArgumentException>(() => Write(o => Http1Handshake.WriteRequest(o, "h", "/", Key, null, [new(name, value)])));

    private static string Answer(string extra = "", string status = "101 Switching Protocols", string accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") =>
        $"HTTP/1.1 {status}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n{extra}\r\n";

    [Fact]
    public void TheClientAcceptsAProper101()
    {
        Assert.Null(Http1Handshake.ValidateResponse(Parse(Write(o => Http1Handshake.WriteAccept(o, Key))), Key, []));
        Assert.Equal("v1", Http1Handshake.ValidateResponse(Parse(Answer("Sec-WebSocket-Protocol: v1\r\n")), Key, ["v2", "v1"]));
    }

    [Theory]
    [InlineData("", "200 OK", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")]
    [InlineData("", "101 Switching Protocols", "s3pPLMBiTxaQ9kYGzzhZRbK+xOp=")]
    [InlineData("Sec-WebSocket-Protocol: v3\r\n", "101 Switching Protocols", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")]
    [InlineData("Sec-WebSocket-Extensions: permessage-deflate\r\n", "101 Switching Protocols", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")]
    [InlineData("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n", "101 Switching Protocols", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")]
    public void TheClientRefusesAWrongAnswer(string extra, string status, string accept)
    {
        var refused = Assert.Throws<WebSocketHandshakeException>(() => Http1Handshake.ValidateResponse(Parse(Answer(extra, status, accept)), Key, ["v1"]));
        Assert.Equal(int.Parse(status[..3], System.Globalization.CultureInfo.InvariantCulture), refused.StatusCode);
    }

    [Fact]
    public void TheClientRefusesAnAnswerWithoutUpgrade() =>
        Assert.Throws<WebSocketHandshakeException>(() => Http1Handshake.ValidateResponse(
            Parse("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"), Key, []));

    [Fact]
    public void TheClientRefusesARequestLineForAnAnswer()
    {
        var refused = Assert.Throws<WebSocketHandshakeException>(() => Http1Handshake.ValidateResponse(
            Parse("GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"), Key, []));
        Assert.Equal("The server's answer does not start with a status line.", refused.Message);
        Assert.Null(refused.StatusCode);
    }
}
