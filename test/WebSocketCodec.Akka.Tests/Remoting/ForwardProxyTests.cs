using WebSocketCodec.Testing;
using System.Text;
using Akka.Actor;
using Akka.Remote;

namespace WebSocketCodec.Akka.Tests.Remoting;

/// <summary><c>akka.remote.websocket.proxy</c>: a node whose outbound associations go through an HTTP forward proxy
/// (an in-test CONNECT proxy) reaches the other node through a tunnel, with the URL's user information as Basic
/// credentials, over HTTP/1.1 and HTTP/2; a proxy that refuses (407) keeps the association from forming.</summary>
public sealed class ForwardProxyTests
{
    private static readonly TimeSpan AskTimeout = TimeSpan.FromSeconds(10);

    [Theory]
    [InlineData("off")]
    [InlineData("on")]
    public async Task Associations_go_through_the_proxy_tunnel_with_its_credentials(string http2)
    {
        using var proxy = new ConnectProxy();
        ActorSystem server = Nodes.Start("server");
        ActorSystem client = Nodes.Start("client", $"proxy = \"http://akka:s%3Acret@127.0.0.1:{proxy.Port}\"\nhttp2 = {http2}");
        try
        {
            server.ActorOf(Props.Create<Echo>(), "echo");
            Address serverAddress = Nodes.AddressOf(server);
            ActorSelection echo = client.ActorSelection(new RootActorPath(serverAddress) / "user" / "echo");

            string[] answers = await Task.WhenAll(Enumerable.Range(1, 5).Select(i => echo.Ask<string>($"via proxy {i}", AskTimeout)));

            Assert.Equal(Enumerable.Range(1, 5).Select(i => $"via proxy {i}"), answers);
            Assert.True(proxy.Tunnels >= 1, $"tunnels: {proxy.Tunnels}");
            string credentials = Convert.ToBase64String(Encoding.UTF8.GetBytes("akka:s:cret"));
            Assert.All(proxy.Heads, head =>
            {
                Assert.StartsWith($"CONNECT 127.0.0.1:{serverAddress.Port} HTTP/1.1\r\n", head, StringComparison.Ordinal);
                Assert.Contains($"\r\nProxy-Authorization: Basic {credentials}", head, StringComparison.Ordinal);
            });
        }
        finally
        {
            await Task.WhenAll(client.Terminate(), server.Terminate());
        }
    }

    [Theory]
    [InlineData("off")]
    [InlineData("on")]
    public async Task A_proxy_that_answers_407_keeps_the_association_from_forming(string http2)
    {
        using var proxy = new ConnectProxy(refusal: "407 Proxy Authentication Required");
        ActorSystem server = Nodes.Start("server");
        ActorSystem client = Nodes.Start("client", $"proxy = \"http://127.0.0.1:{proxy.Port}\"\nhttp2 = {http2}\nconnection-timeout = 5 s");
        try
        {
            server.ActorOf(Props.Create<Echo>(), "echo");
            Address serverAddress = Nodes.AddressOf(server);
            Task<AssociationErrorEvent> failed = AssociationErrors.Next(client, serverAddress);

            Task<string> ask = client.ActorSelection(new RootActorPath(serverAddress) / "user" / "echo").Ask<string>("refused", TimeSpan.FromSeconds(3));

            AssociationErrorEvent error = await failed.WaitAsync(TimeSpan.FromSeconds(20));
            WebSocketHandshakeException refusal = Assert.Single(error.Causes().OfType<WebSocketHandshakeException>());
            Assert.True(refusal.FromProxy);
            Assert.Equal(407, refusal.StatusCode);
            await Assert.ThrowsAsync<AskTimeoutException>(() => ask);
            Assert.Equal(0, proxy.Tunnels);
            Assert.NotEmpty(proxy.Heads);
        }
        finally
        {
            await Task.WhenAll(client.Terminate(), server.Terminate());
        }
    }
}
