using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Infrastructure;

/// <summary>The demo server on the lean transport (<c>--transport lean</c>), cleartext and TLS, for a test class.</summary>
public sealed class LeanEchoServersFixture : IAsyncLifetime
{
    public LeanEchoServerHost Plain { get; private set; } = null!;

    public LeanEchoServerHost Tls { get; private set; } = null!;

    public LeanEchoServerHost Get(bool tls) => tls ? Tls : Plain;

    public Task InitializeAsync()
    {
        Plain = LeanEchoServerHost.Start(new EchoServerOptions { Port = 0, Transport = "lean" });
        Tls = LeanEchoServerHost.Start(new EchoServerOptions { Port = 0, Transport = "lean", Tls = true });
        return Task.CompletedTask;
    }

    public async Task DisposeAsync()
    {
        await Plain.DisposeAsync();
        await Tls.DisposeAsync();
    }
}
