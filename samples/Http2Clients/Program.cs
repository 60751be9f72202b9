using System.CommandLine;
using System.Globalization;
using WebSocketCodec;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.Http2Clients;

var url = new Option<string>("--url") { DefaultValueFactory = _ => "ws://127.0.0.1:8080/echo", Description = "The echo to open websockets to (ws:// is h2c prior knowledge, wss:// is TLS with ALPN h2)." };
var count = new Option<int>("--websockets", "-n") { DefaultValueFactory = _ => 100, Description = "How many websockets to open over the one HTTP/2 connection." };
var messages = new Option<int>("--messages", "-m") { DefaultValueFactory = _ => 10, Description = "Messages per websocket." };
var size = new Option<int>("--size") { DefaultValueFactory = _ => 64, Description = "Message size in bytes." };
var insecure = new Option<bool>("--insecure") { Description = "Trust any server certificate (the echo server's --tls one is self-signed)." };
var root = new RootCommand("Opens N websockets over one HTTP/2 connection, echoes M messages on each and reports the counts.")
{
    url, count, messages, size, insecure,
};
root.SetAction(async (parseResult, cancellation) =>
{
    if (!Uri.TryCreate(parseResult.GetValue(url), UriKind.Absolute, out Uri? target) || target.Scheme is not ("ws" or "wss"))
    {
        Console.Error.WriteLine("--url must be a ws:// or wss:// URL.");
        return 1;
    }

    try
    {
        EchoLoadResult result = await EchoLoad.RunAsync(
            target, parseResult.GetValue(count), parseResult.GetValue(messages), parseResult.GetValue(size),
            parseResult.GetValue(insecure), cancellation);
        string reconnects = result.Reconnects > 0 ? string.Create(CultureInfo.InvariantCulture, $" ({result.Reconnects} reconnects)") : "";
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{result.WebSockets} websockets over {result.Connections} HTTP/2 connection: {result.Echoed}/{result.Sent} messages echoed intact in {result.Elapsed.TotalMilliseconds:F0} ms{reconnects}"));
        return result.Echoed == result.Sent ? 0 : 1;
    }
    catch (WebSocketHandshakeException error)
    {
        Console.Error.WriteLine($"handshake failed: {error.Message}");
        return 1;
    }
});

return await root.Parse(args).InvokeAsync();
