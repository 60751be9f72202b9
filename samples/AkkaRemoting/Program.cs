using System.CommandLine;
using WebSocketCodec.Samples.AkkaRemoting;

var role = new Option<string>("--role") { Required = true, Description = "server (answers) or client (asks, prints the answers, exits)." };
role.AcceptOnlyFromAmong("server", "client");
var host = new Option<string>("--host") { DefaultValueFactory = _ => "127.0.0.1", Description = "Address to listen on (both roles listen: associations go both ways)." };
var port = new Option<int?>("--port") { Description = "Port to listen on (0: any free port; default: 5100 for the server, 0 for the client)." };
var publicHost = new Option<string?>("--public-host") { Description = "The host other nodes reach this one at (a proxy's)." };
var publicPort = new Option<int>("--public-port") { Description = "The port other nodes reach this one at (a proxy's)." };
var tls = new Option<bool>("--tls") { Description = "wss:// with a self-signed certificate made at start (peers' certificates are not checked)." };
var http2 = new Option<bool>("--http2") { Description = "Outbound associations as HTTP/2 streams." };
var serverAddress = new Option<string?>("--server-address") { Description = "(client) The server node's address (default akka.ws://server@127.0.0.1:5100)." };
var count = new Option<int>("--count") { DefaultValueFactory = _ => 5, Description = "(client) How many messages to send." };

var root = new RootCommand("WebSocketCodec Akka.Remote sample: two actor systems exchanging messages over the websocket transport (akka.ws://).")
{
    role, host, port, publicHost, publicPort, tls, http2, serverAddress, count,
};
root.SetAction((parseResult, cancellation) =>
{
    bool server = parseResult.GetValue(role) == "server";
    var options = new AkkaRemotingOptions
    {
        Host = parseResult.GetValue(host)!,
        Port = parseResult.GetValue(port) ?? (server ? 5100 : 0),
        PublicHost = parseResult.GetValue(publicHost),
        PublicPort = parseResult.GetValue(publicPort),
        Tls = parseResult.GetValue(tls),
        Http2 = parseResult.GetValue(http2),
        ServerAddress = parseResult.GetValue(serverAddress),
        Count = parseResult.GetValue(count),
    };
    return server ? ServerRole.RunAsync(options, cancellation) : ClientRole.RunAsync(options, cancellation);
});

return await root.Parse(args).InvokeAsync();
