using System.Net.Security;
using System.Net.WebSockets;
using System.Text;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Interop;

/// <summary>
/// Loopback interop on the demo server, every length boundary, text and binary: our client and .NET's
/// <see cref="ClientWebSocket"/> against our server (cleartext and TLS), and our client against ASP.NET Core's own
/// websockets (<c>--codec builtin</c>).
/// </summary>
public sealed class LoopbackInteropTests
{
    private static readonly WebSocketClientOptions TrustingClient = new()
    {
        Tls = new SslClientAuthenticationOptions { RemoteCertificateValidationCallback = (_, _, _, _) => true },
    };

    [Theory]
    [InlineData("ours", false)]
    [InlineData("ours", true)]
    [InlineData("builtin", false)]
    [InlineData("builtin", true)]
    public async Task OurClientGetsEveryMessageBack(string codec, bool tls)
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Codec = codec, Tls = tls });
        await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(server.Url, TrustingClient);
        await EchoRoundTrip.RunAsync(socket);

        // Fragmented sends are joined by the server and come back whole.
        await socket.SendFragmentAsync("frag"u8.ToArray(), WebSocketMessageType.Text, first: true, endOfMessage: false);
        await socket.SendFragmentAsync("ments"u8.ToArray(), WebSocketMessageType.Text, first: false, endOfMessage: true);
        using (WebSocketMessage? joined = await socket.ReceiveAsync(RawHttp.Timeout()))
        {
            Assert.Equal("fragments", joined!.GetText());
        }

        WebSocketCloseInfo info = await socket.CloseAsync((CloseStatus)4000, "bye", RawHttp.Timeout());
        Assert.True(info.IsClean);
        Assert.Equal((CloseStatus)4000, info.ReceivedStatus);
    }

    [Fact]
    public async Task OneTlsOptionsObjectNamesEachConnectionsOwnHost()
    {
        // An Akka transport shares one options object among its associations to many hosts: the first connection must
        // not leave its host name in it for the next ones.
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Tls = true });
        var named = new System.Collections.Concurrent.ConcurrentQueue<string>();
        var options = new WebSocketClientOptions
        {
            Tls = new SslClientAuthenticationOptions
            {
                RemoteCertificateValidationCallback = (sender, _, _, _) =>
                {
                    named.Enqueue(((SslStream)sender).TargetHostName);
                    return true;
                },
            },
        };

        foreach (string host in new[] { "127.0.0.1", "localhost" })
        {
            await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(new UriBuilder(server.Url) { Host = host }.Uri, options);
            await socket.SendTextAsync(host);
            using WebSocketMessage? echoed = await socket.ReceiveAsync(RawHttp.Timeout());
            Assert.Equal(host, echoed!.GetText());
        }

        Assert.Equal(["127.0.0.1", "localhost"], named);
        Assert.Null(options.Tls.TargetHost);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ClientWebSocketGetsEveryMessageBack(bool tls)
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Tls = tls });
        using var client = new ClientWebSocket();
        client.Options.RemoteCertificateValidationCallback = (_, _, _, _) => true;
        await client.ConnectAsync(server.Url, RawHttp.Timeout());
        await EchoRoundTrip.RunAsync(client);
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "done", RawHttp.Timeout());
        Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
    }

    [Fact]
    public async Task CodeWrittenForClientWebSocketRunsOnOurAdapter()
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Codec = "builtin" });
        using WebSocket client = new PipeWebSocket((await WebSocketClient.ConnectAsync(server.Url)).RunMessages());
        await EchoRoundTrip.RunAsync(client);
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "done", RawHttp.Timeout());
        Assert.Equal(WebSocketState.Closed, client.State);
        Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
    }
}
