using System.Buffers;

namespace WebSocketCodec.Tests.Http1;

public class HttpHeadParserTests
{
    private const string Valid =
        "GET /chat?x=1 HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\nconnection: keep-alive\r\n" +
        "Connection:Upgrade\r\nX-Empty:\r\nSec-WebSocket-Key: \t dGhlIHNhbXBsZSBub25jZQ== \t\r\n\r\n";

    [Fact]
    public void AValidHeadParsesWithFieldsInOrderAndFramesLeftBehind()
    {
        byte[] bytes = [.. System.Text.Encoding.ASCII.GetBytes(Valid), 0x81, 0x80];
        Assert.Equal(OperationStatus.Done, HttpHeadParser.TryParse(bytes, out HttpHead? head, out int length, out _));
        Assert.Equal(Valid.Length, length);
        Assert.False(head!.IsResponse);
        Assert.Equal(("GET", "/chat?x=1", "HTTP/1.1", "", ""), (head.Method, head.Target, head.Version, head.Status, head.ReasonPhrase));
        Assert.Equal(["Host", "Upgrade", "connection", "Connection", "X-Empty", "Sec-WebSocket-Key"], head.Fields.Select(f => f.Key));
        Assert.Equal("keep-alive, Upgrade", head["CONNECTION"]);
        Assert.Equal(2, head.Count("connection"));
        Assert.Equal("dGhlIHNhbXBsZSBub25jZQ==", head["sec-websocket-key"]); // optional whitespace trimmed
        Assert.Equal("", head["X-Empty"]);
        Assert.Null(head["Origin"]);
        Assert.Equal(0, head.Count("Origin"));
    }

    [Theory]
    [InlineData("HTTP/1.1 101 Switching Protocols", "HTTP/1.1", "101", "Switching Protocols")]
    [InlineData("HTTP/1.1 404 ", "HTTP/1.1", "404", "")]
    [InlineData("HTTP/1.0 200 OK fine", "HTTP/1.0", "200", "OK fine")]
    public void AStatusLineIsReadAsAResponse(string statusLine, string version, string status, string reason)
    {
        Assert.Equal(OperationStatus.Done, HttpHeadParser.TryParse(System.Text.Encoding.ASCII.GetBytes(statusLine + "\r\nUpgrade: websocket\r\n\r\n"), out HttpHead? head, out _, out _));
        Assert.True(head!.IsResponse);
        Assert.Equal((version, status, reason, "", ""), (head.Version, head.Status, head.ReasonPhrase, head.Method, head.Target));
        Assert.Equal("websocket", head["upgrade"]);
    }

    [Fact]
    public void EveryStrictPrefixNeedsMoreData()
    {
        byte[] bytes = System.Text.Encoding.ASCII.GetBytes(Valid);
        for (int length = 0; length < bytes.Length; length++)
        {
            Assert.Equal(OperationStatus.NeedMoreData, HttpHeadParser.TryParse(bytes.AsSpan(0, length), out _, out _, out _));
        }
    }

    [Theory]
    [InlineData("GET / HTTP/1.1\nHost: x\n\n", HttpHeadError.BadLineEnding)]
    [InlineData("GET / HTTP/1.1\r\nHost: x\n\r\n\r\n", HttpHeadError.BadLineEnding)]
    [InlineData("GET / HTTP/1.1\r\nHost: x\rY: z\r\n\r\n", HttpHeadError.BadLineEnding)]
    [InlineData("GET / HTTP/1.1\r\nHost : x\r\n\r\n", HttpHeadError.BadHeaderLine)]
    [InlineData("GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", HttpHeadError.BadHeaderLine)]
    [InlineData("GET / HTTP/1.1\r\nBad(Name): x\r\n\r\n", HttpHeadError.BadHeaderLine)]
    [InlineData("GET / HTTP/1.1\r\nNoColon\r\n\r\n", HttpHeadError.BadHeaderLine)]
    [InlineData("GET / HTTP/1.1\r\n: empty name\r\n\r\n", HttpHeadError.BadHeaderLine)]
    [InlineData("GET / HTTP/1.1\r\nX: a\0b\r\n\r\n", HttpHeadError.BadHeaderLine)]
    [InlineData("GET / HTTP/1.1\r\nX: a\u007Fb\r\n\r\n", HttpHeadError.BadHeaderLine)]
    [InlineData("GET /\r\nHost: x\r\n\r\n", HttpHeadError.BadStartLine)]
    [InlineData("GET\r\n\r\n", HttpHeadError.BadStartLine)]
    [InlineData(" GET / HTTP/1.1\r\n\r\n", HttpHeadError.BadStartLine)]
    [InlineData("GET /\t HTTP/1.1\r\n\r\n", HttpHeadError.BadStartLine)]
    public void MalformedHeadsAreRefusedWithTheirReason(string text, HttpHeadError expected)
    {
        Assert.Equal(OperationStatus.InvalidData, HttpHeadParser.TryParse(System.Text.Encoding.Latin1.GetBytes(text), out HttpHead? head, out _, out HttpHeadError error));
        Assert.Equal(expected, error);
        Assert.Null(head);
        Assert.Equal(400, HandshakeFailure.From(error).StatusCode);
    }

    [Fact]
    public void ABareLineFeedFailsBeforeTheHeadEnds()
    {
        Assert.Equal(OperationStatus.InvalidData, HttpHeadParser.TryParse("GET / HTTP/1.1\nHo"u8, out _, out _, out HttpHeadError error));
        Assert.Equal(HttpHeadError.BadLineEnding, error);
    }

    [Fact]
    public void HeadsOverTheBoundAreTooLarge()
    {
        string filler = "GET / HTTP/1.1\r\nX: " + new string('a', 200);
        byte[] incomplete = System.Text.Encoding.ASCII.GetBytes(filler);
        Assert.Equal(OperationStatus.NeedMoreData, HttpHeadParser.TryParse(incomplete, out _, out _, out _, maxHeadLength: 256));
        Assert.Equal(OperationStatus.InvalidData, HttpHeadParser.TryParse(incomplete, out _, out _, out HttpHeadError error, maxHeadLength: 128));
        Assert.Equal(HttpHeadError.HeadTooLarge, error);

        // Complete, but the end lies beyond the bound.
        byte[] complete = System.Text.Encoding.ASCII.GetBytes(filler + "\r\n\r\n");
        Assert.Equal(OperationStatus.InvalidData, HttpHeadParser.TryParse(complete, out _, out _, out error, maxHeadLength: 128));
        Assert.Equal(HttpHeadError.HeadTooLarge, error);
        Assert.Equal(OperationStatus.Done, HttpHeadParser.TryParse(complete, out _, out _, out _, maxHeadLength: complete.Length));
        Assert.Equal(431, HandshakeFailure.From(HttpHeadError.HeadTooLarge).StatusCode);
    }

    [Fact]
    public void TooManyFieldsAreRefused()
    {
        string head = "GET / HTTP/1.1\r\n" + string.Concat(Enumerable.Range(0, 5).Select(i => $"X-{i}: {i}\r\n")) + "\r\n";
        byte[] bytes = System.Text.Encoding.ASCII.GetBytes(head);
        Assert.Equal(OperationStatus.Done, HttpHeadParser.TryParse(bytes, out _, out _, out _, maxFields: 5));
        Assert.Equal(OperationStatus.InvalidData, HttpHeadParser.TryParse(bytes, out _, out _, out HttpHeadError error, maxFields: 4));
        Assert.Equal(HttpHeadError.TooManyFields, error);
        Assert.Equal(431, HandshakeFailure.From(error).StatusCode);
    }
}
