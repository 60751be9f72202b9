using Akka.Actor;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Akka.Tests.Hosting;

/// <summary>Endpoint mode: an actor system inside an ASP.NET Core application, reached on the application's own port
/// (<c>/akka/{system}</c>), talks to a self-hosted node, while the application's other endpoints keep serving.</summary>
public sealed class EndpointModeTests : IAsyncLifetime
{
    private static readonly TimeSpan AskTimeout = TimeSpan.FromSeconds(10);
    private RemotingApp _app = null!;
    private ActorSystem _hosted = null!;
    private ActorSystem _selfHosted = null!;

    public async Task InitializeAsync()
    {
        _app = await RemotingApp.StartAsync(endpoints => endpoints.MapGet("/health", () => "healthy"));
        _hosted = _app.StartSystem("hosted");
        _selfHosted = Nodes.Start("selfhosted");
        _hosted.ActorOf(Props.Create<Echo>(), "echo");
        _selfHosted.ActorOf(Props.Create<Echo>(), "echo");
    }

    public async Task DisposeAsync()
    {
        await _selfHosted.Terminate();
        await _app.DisposeAsync();
    }

    [Fact]
    public async Task The_hosted_node_takes_the_application_port_and_both_nodes_ask_each_other()
    {
        Address hosted = Nodes.AddressOf(_hosted);
        Assert.Equal($"akka.ws://hosted@127.0.0.1:{_app.Port}", hosted.ToString());

        // The hosted node associates first (outbound from the application), then the self-hosted node asks back.
        string fromSelfHosted = await _hosted.ActorSelection(EchoOf(_selfHosted)).Ask<string>("to the self-hosted node", AskTimeout);
        string fromHosted = await _selfHosted.ActorSelection(EchoOf(_hosted)).Ask<string>("to the hosted node", AskTimeout);

        Assert.Equal("to the self-hosted node", fromSelfHosted);
        Assert.Equal("to the hosted node", fromHosted);
    }

    [Fact]
    public async Task The_application_other_endpoints_share_the_port_while_remoting_runs()
    {
        ActorSelection echo = _selfHosted.ActorSelection(EchoOf(_hosted));
        Assert.Equal("before", await echo.Ask<string>("before", AskTimeout));

        using var http = new HttpClient { Timeout = AskTimeout };
        string health = await http.GetStringAsync(new Uri($"http://127.0.0.1:{_app.Port}/health"));

        Assert.Equal("healthy", health);
        Assert.Equal("after", await echo.Ask<string>("after", AskTimeout));
        Assert.Contains(_app.Requests, request => request.Path == "/akka/hosted");
        Assert.Contains(_app.Requests, request => request.Path == "/health");
    }

    [Fact]
    public async Task A_websocket_to_an_actor_system_the_application_does_not_serve_gets_404()
    {
        using var timeout = new CancellationTokenSource(AskTimeout);
        WebSocketHandshakeException refused = await Assert.ThrowsAsync<WebSocketHandshakeException>(
            () => WebSocketClient.ConnectAsync(new Uri($"ws://127.0.0.1:{_app.Port}/akka/nobody"), cancellationToken: timeout.Token));
        Assert.Equal(StatusCodes.Status404NotFound, refused.StatusCode);

        // The node that is served still is, on the same port.
        var served = await WebSocketClient.ConnectAsync(new Uri($"ws://127.0.0.1:{_app.Port}/akka/hosted"), cancellationToken: timeout.Token);
        await served.DisposeAsync();
    }

    private static ActorPath EchoOf(ActorSystem system) => new RootActorPath(Nodes.AddressOf(system)) / "user" / "echo";
}
