using System.CommandLine;
using WebSocketCodec.Samples.WebSocketProxy;

var host = new Option<string>("--host") { DefaultValueFactory = _ => "127.0.0.1", Description = "Address to listen on." };
var port = new Option<int>("--port") { DefaultValueFactory = _ => 8081, Description = "Port to listen on (0: any free port)." };
var tls = new Option<bool>("--tls") { Description = "Serve wss:// (HTTP/2 and HTTP/1.1) with a self-signed certificate made at start." };
var backend = new Option<string>("--backend") { DefaultValueFactory = _ => "ws://127.0.0.1:8080", Description = "The HTTP/1.1 websocket backend (ws://host:port)." };
var root = new RootCommand("WebSocketCodec proxy sample: accepts websockets over HTTP/1.1 and HTTP/2 on one port and relays them, frames untouched, to an HTTP/1.1 backend.")
{
    host, port, tls, backend,
};
root.SetAction(async (parseResult, cancellation) =>
{
    if (!Uri.TryCreate(parseResult.GetValue(backend), UriKind.Absolute, out Uri? backendUrl))
    {
        Console.Error.WriteLine("cannot start: --backend must be a ws:// URL.");
        return 1;
    }

    var options = new WebSocketProxyOptions
    {
        Host = parseResult.GetValue(host)!,
        Port = parseResult.GetValue(port),
        Tls = parseResult.GetValue(tls),
        Backend = backendUrl,
    };
    WebSocketProxyHost proxy;
    try
    {
        proxy = await WebSocketProxyHost.StartAsync(options, cancellation);
    }
    catch (Exception error) when (error is ArgumentException or IOException)
    {
        Console.Error.WriteLine($"cannot start: {error.Message}");
        return 1;
    }

    await using var _ = proxy;
    Console.WriteLine($"listening on {proxy.BaseUrl}, relaying to {options.Backend}");
    await proxy.WaitForShutdownAsync(cancellation);
    Console.WriteLine("stopped");
    return 0;
});

return await root.Parse(args).InvokeAsync();
