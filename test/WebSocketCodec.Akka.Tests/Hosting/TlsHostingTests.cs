using Akka.Actor;

namespace WebSocketCodec.Akka.Tests.Hosting;

/// <summary>TLS (<c>tls.enabled = on</c>): two self-hosted nodes with a PKCS#12 certificate from a file, addresses
/// <c>akka.wss://</c>, over HTTP/1.1 and over HTTP/2 (ALPN h2).</summary>
public sealed class TlsHostingTests : IDisposable
{
    private readonly PfxFile _certificate = PfxFile.Create();

    public void Dispose() => _certificate.Dispose();

    [Theory]
    [InlineData("off")]
    [InlineData("on")]
    public async Task Two_nodes_ask_each_other_over_wss(string http2)
    {
        string websocket = _certificate.Hocon + $"\nhttp2 = {http2}";
        ActorSystem server = Nodes.Start("server", websocket);
        ActorSystem client = Nodes.Start("client", websocket);
        try
        {
            Address serverAddress = Nodes.AddressOf(server);
            Assert.Equal("akka.wss", serverAddress.Protocol);
            Assert.Equal("akka.wss", Nodes.AddressOf(client).Protocol);
            server.ActorOf(Props.Create<Echo>(), "echo");
            client.ActorOf(Props.Create<Echo>(), "echo");

            string there = await client.ActorSelection(new RootActorPath(serverAddress) / "user" / "echo").Ask<string>("over tls", TimeSpan.FromSeconds(10));
            string back = await server.ActorSelection(new RootActorPath(Nodes.AddressOf(client)) / "user" / "echo").Ask<string>("and back", TimeSpan.FromSeconds(10));

            Assert.Equal("over tls", there);
            Assert.Equal("and back", back);
        }
        finally
        {
            await Task.WhenAll(client.Terminate(), server.Terminate());
        }
    }
}
