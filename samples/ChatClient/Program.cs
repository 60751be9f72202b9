using System.CommandLine;
using WebSocketCodec.Samples.ChatClient;

var url = new Option<string>("--url") { Required = true, Description = "The room's websocket: ws://host:port/chat/{room} or wss://host:port/chat/{room}." };
var nick = new Option<string>("--nick") { Required = true, Description = "The nickname your texts carry." };
var proxy = new Option<string?>("--proxy") { Description = "An HTTP proxy to tunnel through (http://[user:pass@]host:port); without it HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY apply, as for curl." };
var insecure = new Option<bool>("--insecure") { Description = "Trust any server certificate (the chat sample's --tls one is self-signed)." };
var http2 = new Option<bool>("--http2") { Description = "Open the websocket as an HTTP/2 stream (extended CONNECT) instead of an HTTP/1.1 upgrade." };
var root = new RootCommand(
    "A console chat client that reconnects: each line typed goes to the room as {\"nick\":...,\"text\":...}, each text from the room is printed as 'nick: text', "
    + "connection events as '# ...' lines (a line typed while disconnected prints '# queued' and goes out after reconnecting). End of input closes the websocket (1000).")
{
    url, nick, proxy, insecure, http2,
};
root.SetAction(async (parseResult, cancellation) =>
{
    if (!Uri.TryCreate(parseResult.GetValue(url), UriKind.Absolute, out Uri? target) || target.Scheme is not ("ws" or "wss"))
    {
        Console.Error.WriteLine("--url must be a ws:// or wss:// URL.");
        return 2;
    }

    Uri? through = null;
    if (parseResult.GetValue(proxy) is { Length: > 0 } proxyText
        && (!Uri.TryCreate(proxyText, UriKind.Absolute, out through) || through.Scheme != Uri.UriSchemeHttp))
    {
        Console.Error.WriteLine("--proxy must be an http:// URL (http://[user:pass@]host:port).");
        return 2;
    }

    string name = parseResult.GetValue(nick)!.Trim();
    if (name.Length == 0)
    {
        Console.Error.WriteLine("--nick must not be empty.");
        return 2;
    }

    var options = new ChatClientOptions
    {
        Url = target,
        Nick = name,
        Proxy = through,
        Insecure = parseResult.GetValue(insecure),
        Http2 = parseResult.GetValue(http2),
    };
    return await ChatConsole.RunAsync(options, Console.In, Console.Out, cancellation); // Ctrl+C and SIGTERM cancel
});

// Ctrl+C and SIGTERM cancel the action, which closes the websocket (1000) within this bound (System.CommandLine
// 2.0's default configuration leaves them to the runtime, which ends the process at once).
return await root.Parse(args).InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = TimeSpan.FromSeconds(10) });
