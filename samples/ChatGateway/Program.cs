using System.CommandLine;
using WebSocketCodec.Samples.ChatGateway;
using WebSocketCodec.Samples.EchoServer;

var host = new Option<string>("--host") { DefaultValueFactory = _ => "127.0.0.1", Description = "Address to listen on." };
var port = new Option<int>("--port") { DefaultValueFactory = _ => 8080, Description = "Port to listen on (0: any free port)." };
var tls = new Option<bool>("--tls") { Description = "Serve wss:// and https:// with a self-signed certificate made at start." };
var nodes = new Option<string>("--nodes") { Required = true, Description = "The chat nodes' base URLs, comma-separated (http://host:port,...)." };
var nodeProtocol = new Option<string>("--node-protocol") { DefaultValueFactory = _ => "http2", Description = "http2 (websockets as streams of one connection per node; cleartext by prior knowledge) or http1 (a connection per websocket)." };
nodeProtocol.AcceptOnlyFromAmong("http2", "http1");

var root = new RootCommand("WebSocketCodec chat gateway: one address for the chat nodes of a cluster (samples/Chat --seeds), on YARP: websockets and pages go to a healthy node, no sticky sessions.")
{
    host, port, tls, nodes, nodeProtocol,
};
root.SetAction((parseResult, cancellation) =>
{
    Uri[] nodeUrls;
    try
    {
        nodeUrls = [.. parseResult.GetValue(nodes)!.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(node => new Uri(node))];
    }
    catch (UriFormatException error)
    {
        Console.Error.WriteLine($"cannot start: --nodes: {error.Message}");
        return Task.FromResult(1);
    }

    var options = new GatewayOptions
    {
        Host = parseResult.GetValue(host)!,
        Port = parseResult.GetValue(port),
        Tls = parseResult.GetValue(tls),
        Nodes = nodeUrls,
        Http2ToNodes = parseResult.GetValue(nodeProtocol) == "http2",
    };
    return SampleHosting.RunAsync(token => GatewayHost.StartAsync(options, token), gateway => gateway.BaseUrl, (gateway, token) => gateway.WaitForShutdownAsync(token), cancellation);
});

return await root.Parse(args).InvokeAsync();
