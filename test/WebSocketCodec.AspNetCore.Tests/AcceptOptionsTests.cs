using System.Net.WebSockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;

namespace WebSocketCodec.AspNetCore.Tests;

/// <summary>Where an endpoint's <see cref="WebSocketAcceptOptions"/> come from: the application's
/// <c>services.Configure&lt;WebSocketAcceptOptions&gt;</c>, then the endpoint's own delegate, on a copy per endpoint.</summary>
public sealed class AcceptOptionsTests : IAsyncLifetime
{
    private KestrelHost _host = null!;

    public async Task InitializeAsync() =>
        _host = await KestrelHost.StartAsync(
            services: services => services.Configure<WebSocketAcceptOptions>(o =>
            {
                o.Subprotocols = ["base"];
                o.AllowedOrigins = ["https://good.example"];
            }),
            map: app =>
            {
                app.MapWebSocket("/own", (_, websocket) => websocket.CloseAsync(), o => o.Subprotocols = ["own", "base"]);
                app.MapWebSocket("/inherited", (_, websocket) => websocket.CloseAsync());
            });

    public async Task DisposeAsync() => await _host.DisposeAsync();

    [Theory]
    [InlineData("/own", "own")]
    [InlineData("/inherited", "base")]
    public async Task TheEndpointsDelegateRunsAfterTheApplicationsOptionsOnItsOwnCopy(string path, string selected)
    {
        using var client = new ClientWebSocket();
        client.Options.AddSubProtocol("own");
        client.Options.AddSubProtocol("base");
        await client.ConnectAsync(_host.WebSocketUrl(path), RawHttp.Timeout());

        Assert.Equal(selected, client.SubProtocol);
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
    }

    [Theory]
    [InlineData("/own")]
    [InlineData("/inherited")]
    public async Task TheApplicationsOriginRuleHoldsOnEveryEndpoint(string path)
    {
        using var client = new ClientWebSocket();
        client.Options.SetRequestHeader("Origin", "https://evil.example");
        client.Options.CollectHttpResponseDetails = true;
        await Assert.ThrowsAsync<WebSocketException>(() => client.ConnectAsync(_host.WebSocketUrl(path), RawHttp.Timeout()));
        Assert.Equal(System.Net.HttpStatusCode.Forbidden, client.HttpStatusCode);
    }
}
