using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Infrastructure;

/// <summary>The demo server twice, cleartext and TLS, shared by a test class.</summary>
public sealed class EchoServersFixture : IAsyncLifetime
{
    public EchoServerHost Plain { get; private set; } = null!;

    public EchoServerHost Tls { get; private set; } = null!;

    public EchoServerHost Get(bool tls) => tls ? Tls : Plain;

    public async Task InitializeAsync()
    {
        Plain = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0 });
        Tls = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Tls = true });
    }

    public async Task DisposeAsync()
    {
        await Plain.DisposeAsync();
        await Tls.DisposeAsync();
    }
}
