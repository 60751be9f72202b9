using System.CommandLine;
using WebSocketCodec.Samples.Chat;
using WebSocketCodec.Samples.EchoServer;

var host = new Option<string>("--host") { DefaultValueFactory = _ => "127.0.0.1", Description = "Address to listen on." };
var port = new Option<int>("--port") { DefaultValueFactory = _ => 8080, Description = "Port to listen on (0: any free port)." };
var tls = new Option<bool>("--tls") { Description = "Serve wss:// and https:// with a self-signed certificate made at start." };
var transport = new Option<string>("--transport") { DefaultValueFactory = _ => "kestrel", Description = "kestrel (HTTP/1.1 and HTTP/2 websockets, the page at /) or lean (WebSocketCodec.Lean, Linux: HTTP/1.1 websockets at /chat/{room} only, no page)." };
transport.AcceptOnlyFromAmong("kestrel", "lean");
var slowConsumer = new Option<double?>("--slow-consumer-timeout") { Description = "Seconds a member's peer may take none of its output before it is closed with 1008 (default: the library's 30)." };
slowConsumer.Validators.Add(result =>
{
    if (result.GetValueOrDefault<double?>() is <= 0)
    {
        result.AddError("--slow-consumer-timeout takes a number of seconds above 0.");
    }
});

var seeds = new Option<string?>("--seeds") { Description = "Join the Akka cluster of these seed nodes (their base URLs, comma-separated: http://host:port,...; list this node's own URL first to start the cluster): each room becomes a cluster group, and the node prints 'cluster members: N' when that changes. Needs a fixed --port." };

var root = new RootCommand("WebSocketCodec chat: /chat/{room} relays every text message to everyone in the room; / serves a chat page (open it in a browser).")
{
    host, port, tls, transport, slowConsumer, seeds,
};
root.SetAction((parseResult, cancellation) =>
{
    var options = new ChatOptions { Host = parseResult.GetValue(host)!, Port = parseResult.GetValue(port), Tls = parseResult.GetValue(tls) };
    if (parseResult.GetValue(seeds) is { Length: > 0 } seedList)
    {
        if (parseResult.GetValue(transport) == "lean")
        {
            Console.Error.WriteLine("--seeds runs on Kestrel (the node's remoting shares its port): leave out --transport lean.");
            return Task.FromResult(2);
        }

        options = options with { Seeds = [.. seedList.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(seed => new Uri(seed))] };
    }

    if (parseResult.GetValue(slowConsumer) is { } seconds)
    {
        options = options with { SlowConsumerTimeout = TimeSpan.FromSeconds(seconds) };
    }

    return parseResult.GetValue(transport) == "lean"
        ? SampleHosting.RunAsync(
            _ => Task.FromResult(LeanChatServerHost.Start(options)), server => server.Url, (server, token) => server.WaitForShutdownAsync(token), cancellation)
        : SampleHosting.RunAsync(
            token => ChatServerHost.StartAsync(options, token), server => server.BaseUrl, (server, token) => server.WaitForShutdownAsync(token), cancellation);
});

return await root.Parse(args).InvokeAsync();
