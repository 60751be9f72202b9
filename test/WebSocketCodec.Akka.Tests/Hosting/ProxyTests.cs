using Akka.Actor;
using WebSocketCodec.Samples.WebSocketProxy;

namespace WebSocketCodec.Akka.Tests.Hosting;

/// <summary>Remoting through an HTTP proxy (<c>samples/WebSocketProxy</c>, which relays websockets to an HTTP/1.1
/// backend): the server node advertises the proxy's address (public-hostname, public-port), so the client, which only
/// knows the proxy, reaches it and gets the answers back, over HTTP/1.1 or HTTP/2 to the proxy.</summary>
public sealed class ProxyTests : IAsyncLifetime
{
    private RemotingApp _backend = null!;
    private WebSocketProxyHost _proxy = null!;
    private ActorSystem _server = null!;

    public async Task InitializeAsync()
    {
        _backend = await RemotingApp.StartAsync();
        _proxy = await WebSocketProxyHost.StartAsync(new WebSocketProxyOptions { Port = 0, Backend = new Uri($"ws://127.0.0.1:{_backend.Port}") });
        _server = _backend.StartSystem("server", websocket: $"public-hostname = \"127.0.0.1\"\npublic-port = {_proxy.BaseUrl.Port}");
        _server.ActorOf(Props.Create<Echo>(), "echo");
    }

    public async Task DisposeAsync()
    {
        await _backend.DisposeAsync();
        await _proxy.DisposeAsync();
    }

    [Theory]
    [InlineData("off")]
    [InlineData("on")]
    public async Task A_client_that_knows_only_the_proxy_reaches_the_server_through_it(string http2)
    {
        Address advertised = Nodes.AddressOf(_server);
        Assert.Equal($"akka.ws://server@127.0.0.1:{_proxy.BaseUrl.Port}", advertised.ToString());
        Assert.NotEqual(_backend.Port, advertised.Port);
        ActorSystem client = Nodes.Start("client", websocket: $"http2 = {http2}");
        try
        {
            ActorSelection echo = client.ActorSelection(new RootActorPath(advertised) / "user" / "echo");
            string[] answers = await Task.WhenAll(Enumerable.Range(1, 10).Select(i => echo.Ask<string>($"message {i}", TimeSpan.FromSeconds(10))));

            Assert.Equal(Enumerable.Range(1, 10).Select(i => $"message {i}"), answers);
            // The backend saw the association come from the proxy, which always speaks HTTP/1.1 to it.
            Assert.Contains(_backend.Requests, request => request.Path == "/akka/server" && request.Protocol == "HTTP/1.1");
        }
        finally
        {
            await client.Terminate();
        }
    }
}
