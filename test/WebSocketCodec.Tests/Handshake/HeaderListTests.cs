
namespace WebSocketCodec.Tests.Handshake;

public class HeaderListTests
{
    private static string[] Elements(string value, out bool malformed)
    {
        var list = new List<string>();
        var enumerator = new HeaderListEnumerator(value);
        while (enumerator.MoveNext())
        {
            list.Add(enumerator.Current.ToString());
        }

        malformed = enumerator.Malformed;
        return [.. list];
    }

    [Theory]
    [InlineData("a, b,,c ,\t d", new[] { "a", "b", "c", "d" })]
    [InlineData("", new string[0])]
    [InlineData(" ,\t, ", new string[0])]
    [InlineData("x; p=\"a,b\", y", new[] { "x; p=\"a,b\"", "y" })]
    [InlineData("x; p=\"a\\\",b\", y", new[] { "x; p=\"a\\\",b\"", "y" })]
    public void ListElementsAreSplitTrimmedAndEmptiesSkipped(string value, string[] expected)
    {
        Assert.Equal(expected, Elements(value, out bool malformed));
        Assert.False(malformed);
    }

    [Fact]
    public void UnterminatedQuoteIsMalformed()
    {
        Elements("a, b; p=\"open", out bool malformed);
        Assert.True(malformed);
    }

    [Theory]
    [InlineData("websocket", true)]
    [InlineData("permessage-deflate", true)]
    [InlineData("v1.chat_x!#$%&'*+^`|~", true)]
    [InlineData("", false)]
    [InlineData("a b", false)]
    [InlineData("a(b", false)]
    [InlineData("a\"b", false)]
    [InlineData("a/b", false)]
    [InlineData("чат", false)]
    public void TokensFollowRfc9110(string value, bool isToken) => Assert.Equal(isToken, HttpToken.IsToken(value));

    [Theory]
    [InlineData("chat, superchat", new[] { "superchat", "chat" }, "superchat")] // server preference wins
    [InlineData("superchat,chat", new[] { "chat", "superchat" }, "chat")]
    [InlineData("Chat", new[] { "chat" }, null)] // case-sensitive
    [InlineData("mqtt", new[] { "chat" }, null)]
    [InlineData(" ,, chat ,", new[] { "chat" }, "chat")]
    [InlineData("", new[] { "chat" }, null)]
    public void SubprotocolSelectionFollowsServerPreference(string offered, string[] supported, string? expected)
    {
        Assert.True(Subprotocols.TrySelect(offered, supported, out string? selected));
        Assert.Equal(expected, selected);
    }

    [Theory]
    [InlineData("chat, a b")]
    [InlineData("chat, x/y")]
    [InlineData("\"chat\"")]
    public void MalformedSubprotocolOfferIsRefused(string offered)
    {
        Assert.False(Subprotocols.TrySelect(offered, ["chat"], out string? selected));
        Assert.Null(selected);
    }

    [Fact]
    public void PermessageDeflateOfferParses()
    {
        const string header = "permessage-deflate; client_max_window_bits; server_max_window_bits=10, permessage-deflate; x=\"15\"";
        var offers = new List<(string Name, List<(string, string?)> Parameters)>();
        foreach (ReadOnlySpan<char> element in new HeaderListEnumerator(header))
        {
            Assert.True(ExtensionOffer.TryParse(element, out var offer));
            var parameters = new List<(string, string?)>();
            var enumerator = offer.Parameters;
            while (enumerator.MoveNext())
            {
                parameters.Add((enumerator.Name.ToString(), enumerator.HasValue ? enumerator.Value.ToString() : null));
            }

            offers.Add((offer.Name.ToString(), parameters));
        }

        Assert.Equal(2, offers.Count);
        Assert.Equal("permessage-deflate", offers[0].Name);
        Assert.Equal([("client_max_window_bits", null), ("server_max_window_bits", "10")], offers[0].Parameters);
        Assert.Equal([("x", "15")], offers[1].Parameters);
    }

    [Theory]
    [InlineData("")]
    [InlineData("; a=1")]
    [InlineData("a;")]
    [InlineData("a; =1")]
    [InlineData("a; b=")]
    [InlineData("a; b=c d")]
    [InlineData("a b")]
    [InlineData("a; b(c)")]
    public void MalformedExtensionOffersAreRefused(string element) =>
        Assert.False(ExtensionOffer.TryParse(element, out _));
}
