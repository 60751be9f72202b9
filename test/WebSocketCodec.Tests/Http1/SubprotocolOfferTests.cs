using System.Buffers;

namespace WebSocketCodec.Tests.Http1;

/// <summary>A client offers only subprotocols that are HTTP tokens, each once, as custom headers are checked.</summary>
public class SubprotocolOfferTests
{
    [Theory]
    [InlineData("chat, superchat")]
    [InlineData("chat\r\nX-Injected: 1")]
    [InlineData("")]
    [InlineData("a b")]
    [InlineData("v1/json")]
    public void AnOfferThatIsNotATokenIsRefusedBeforeAnythingIsWritten(string subprotocol)
    {
        var output = new ArrayBufferWriter<byte>();
        var error = Assert.Throws<ArgumentException>(() =>
            Http1Handshake.WriteRequest(output, "example.com", "/", WebSocketHandshake.CreateKey(), ["ok", subprotocol]));
        Assert.Equal("subprotocols", error.ParamName);
        Assert.Equal(0, output.WrittenCount);
    }

    [Fact]
    public void ASubprotocolOfferedTwiceIsRefused()
    {
        var error = Assert.Throws<ArgumentException>(() => Subprotocols.ValidateOffer(["chat", "mqtt", "chat"]));
        Assert.Contains("twice", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TokensAreOfferedInOrder()
    {
        var output = new ArrayBufferWriter<byte>();
        Http1Handshake.WriteRequest(output, "example.com", "/", WebSocketHandshake.CreateKey(), ["v2.chat", "mqtt"]);
        Assert.Contains("Sec-WebSocket-Protocol: v2.chat, mqtt\r\n", System.Text.Encoding.ASCII.GetString(output.WrittenSpan), StringComparison.Ordinal);
    }
}
