using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using WebSocketCodec.Samples.EchoServer;

var host = new Option<string>("--host") { DefaultValueFactory = _ => "127.0.0.1", Description = "Address to listen on." };
var port = new Option<int>("--port") { DefaultValueFactory = _ => 8080, Description = "Port to listen on (0: any free port)." };
var tls = new Option<bool>("--tls") { Description = "Serve wss:// and https:// with a self-signed certificate made at start." };
var codec = new Option<string>("--codec") { DefaultValueFactory = _ => "ours", Description = "ours (WebSocketCodec) or builtin (ASP.NET Core's WebSockets)." };
codec.AcceptOnlyFromAmong("ours", "builtin");
var transport = new Option<string>("--transport") { DefaultValueFactory = _ => "kestrel", Description = "kestrel (HTTP/1.1 and HTTP/2 websockets, the page at /) or lean (WebSocketCodec.Lean, Linux: HTTP/1.1 websockets at /echo only, our codec only)." };
transport.AcceptOnlyFromAmong("kestrel", "lean");
var keepAlive = Seconds("--keepalive", "Seconds of quiet before a keep-alive Ping; the Pong timeout is the same (0: off; default: a Ping after 30 s, 15 s for the Pong).");
var maxWebSockets = new Option<int?>("--max-websockets") { Description = "The most websockets open at once; a handshake beyond gets 503 (ours only; default: no cap)." };
maxWebSockets.Validators.Add(result =>
{
    if (result.GetValueOrDefault<int?>() is < 1)
    {
        result.AddError("--max-websockets takes a number from 1 up.");
    }
});
var deflate = new Option<bool>("--deflate") { Description = "Accept permessage-deflate on /echo when the client offers it (browsers do)." };
var idleTimeout = Seconds("--idle-timeout", "Seconds a peer may send nothing before it is closed with 1001 (0: off; ours only).");

var root = new RootCommand("WebSocketCodec echo server: echoes every websocket message sent to /echo; / serves a page that uses it (open it in a browser).")
{
    host, port, tls, codec, transport, deflate, keepAlive, idleTimeout, maxWebSockets,
};
root.SetAction((parseResult, cancellation) =>
{
    var options = new EchoServerOptions
    {
        Host = parseResult.GetValue(host)!,
        Port = parseResult.GetValue(port),
        Tls = parseResult.GetValue(tls),
        Codec = parseResult.GetValue(codec)!,
        Transport = parseResult.GetValue(transport)!,
        Deflate = parseResult.GetValue(deflate),
        KeepAlive = parseResult.GetValue(keepAlive) is { } seconds ? TimeSpan.FromSeconds(seconds) : null, // null: the library's default
        MaxWebSockets = parseResult.GetValue(maxWebSockets),
        IdleTimeout = TimeSpan.FromSeconds(parseResult.GetValue(idleTimeout) ?? 0),
    };
    return options.Transport == "lean"
        ? SampleHosting.RunAsync(
            _ => Task.FromResult(LeanEchoServerHost.Start(options)), server => server.Url, (server, token) => server.WaitForShutdownAsync(token), cancellation)
        : SampleHosting.RunAsync(
            token => EchoServerHost.StartAsync(options, token), server => server.Url, (server, token) => server.WaitForShutdownAsync(token), cancellation);
});

return await root.Parse(args).InvokeAsync();

// A number of seconds from 0 to a day, or null when not given; anything else (negative, not a number) is a usage error,
// not an exception.
static Option<double?> Seconds(string name, string description) => new(name)
{
    Description = description,
    CustomParser = result =>
    {
        if (result.Tokens.Count == 0)
        {
            return null;
        }

        string text = result.Tokens[^1].Value;
        if (double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds) && seconds is >= 0 and <= 86_400)
        {
            return seconds;
        }

        result.AddError($"{name} takes 0 to 86400 seconds, not '{text}'.");
        return 0;
    },
};
