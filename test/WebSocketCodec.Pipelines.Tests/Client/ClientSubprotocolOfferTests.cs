using System.Net;
using System.Net.Sockets;

namespace WebSocketCodec.Pipelines.Tests.Client;

/// <summary>Both clients refuse a bad subprotocol offer (not a token, or twice) with an <see cref="ArgumentException"/>
/// before anything reaches the network.</summary>
public sealed class ClientSubprotocolOfferTests
{
    public static TheoryData<string[]> BadOffers => new()
    {
        { new[] { "chat", "a b" } },
        { new[] { "chat\r\nX-Injected: 1" } },
        { new[] { "" } },
        { new[] { "chat", "mqtt", "chat" } },
    };

    [Theory]
    [MemberData(nameof(BadOffers))]
    public async Task TheHttp1ClientRefusesBeforeConnecting(string[] offer)
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        var url = new Uri($"ws://127.0.0.1:{((IPEndPoint)listener.LocalEndPoint!).Port}/");

        var error = await Assert.ThrowsAsync<ArgumentException>(() =>
            WebSocketClient.ConnectAsync(url, new WebSocketClientOptions { Subprotocols = offer }, Loopback.Timeout()));
        Assert.Equal("options", error.ParamName);
        Assert.False(listener.Poll(0, SelectMode.SelectRead)); // no connection is waiting to be accepted
    }

    [Theory]
    [MemberData(nameof(BadOffers))]
    public async Task TheHttp2ClientRefusesBeforeSendingTheRequest(string[] offer)
    {
        using var handler = new CountingHandler();
        using var invoker = new HttpMessageInvoker(handler);

        var error = await Assert.ThrowsAsync<ArgumentException>(() => WebSocketHttp2Client.ConnectAsync(
            invoker, new Uri("ws://127.0.0.1:1/"), new WebSocketClientOptions { Subprotocols = offer }, Loopback.Timeout()));
        Assert.Equal("options", error.ParamName);
        Assert.Equal(0, handler.Requests);
    }

    /// <summary>Counts requests and refuses them all.</summary>
    private sealed class CountingHandler : HttpMessageHandler
    {
        public int Requests { get; private set; }

        protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            Requests++;
            return Task.FromResult(new HttpResponseMessage(HttpStatusCode.BadRequest));
        }
    }
}
