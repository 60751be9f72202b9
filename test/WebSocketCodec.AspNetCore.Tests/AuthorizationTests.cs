using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests;

/// <summary>The endpoint's convention builder composes with ASP.NET Core's authorization, and the application sees
/// the authenticated user.</summary>
public sealed class AuthorizationTests
{
    [Fact]
    public async Task OnlyAuthorizedClientsUpgradeAndTheApplicationSeesTheUser()
    {
        await using KestrelHost host = await KestrelHost.StartAsync(
            app =>
            {
                app.UseAuthentication();
                app.UseAuthorization();
                app.MapWebSocketMessages("/private", async (context, socket) =>
                {
                    await socket.SendTextAsync($"hello {context.User.Identity?.Name}");
                }).RequireAuthorization();
            },
            services: services =>
            {
                services.AddAuthentication(HeaderAuthenticationHandler.SchemeName)
                    .AddScheme<AuthenticationSchemeOptions, HeaderAuthenticationHandler>(HeaderAuthenticationHandler.SchemeName, null);
                services.AddAuthorization();
            });

        var refused = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketClient.ConnectAsync(host.WebSocketUrl("/private")));
        Assert.Equal(401, refused.StatusCode);

        var options = new WebSocketClientOptions { Headers = [new("X-User", "alice")] };
        await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(host.WebSocketUrl("/private"), options);
        using WebSocketMessage? greeting = await socket.ReceiveAsync(RawHttp.Timeout());
        Assert.Equal("hello alice", greeting!.GetText());
        Assert.True((await socket.Completion.WaitAsync(RawHttp.Timeout())).IsClean);
    }
}
