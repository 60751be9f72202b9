using System.CommandLine;
using System.Globalization;
using WebSocketCodec.Samples.SpanNettyEchoServer;

var host = new Option<string>("--host") { DefaultValueFactory = _ => "127.0.0.1", Description = "Address to listen on (an IP address or localhost)." };
var port = new Option<int>("--port") { DefaultValueFactory = _ => 8080, Description = "Port to listen on (0: any free port)." };
var path = new Option<string>("--path") { DefaultValueFactory = _ => "/echo", Description = "Where the echo is served." };
var tls = new Option<bool>("--tls") { Description = "Serve wss:// with a self-signed certificate made at start (TLS by SslStreamHandler)." };
var codec = new Option<string>("--codec") { DefaultValueFactory = _ => "ours", Description = "ours (WebSocketCodec, message echo), ours-frames (callbacks echo): HTTP/1.1 and HTTP/2 on one port; ours-h2 (the callbacks echo for HTTP/2 clients), builtin (SpanNetty's codec, one flush per read), builtin-flush (a flush per frame), raw (byte echo), raw-h2 (HTTP/2 stream byte echo)." };
codec.AcceptOnlyFromAmong([.. SpanNettyEchoOptions.Codecs]);
var transport = new Option<string>("--transport") { DefaultValueFactory = _ => "socket", Description = "socket or libuv." };
transport.AcceptOnlyFromAmong([.. SpanNettyEchoOptions.Transports]);
var threads = new Option<int>("--threads") { Description = "Event loop threads for connections (default: one per core)." };
var perf = new Option<bool>("--perf") { Description = "For the perf tool: print 'port N', answer 'gc' on standard input, stop when it ends.", Hidden = true };
var root = new RootCommand("WebSocketCodec on SpanNetty: a websocket echo server (every message sent to /echo comes back).")
{
    host, port, path, tls, codec, transport, threads, perf,
};
root.SetAction(async (parseResult, cancellation) =>
{
    var options = new SpanNettyEchoOptions
    {
        Host = parseResult.GetValue(host)!,
        Port = parseResult.GetValue(port),
        Path = parseResult.GetValue(path)!,
        Tls = parseResult.GetValue(tls),
        Codec = parseResult.GetValue(codec)!,
        Transport = parseResult.GetValue(transport)!,
        Threads = parseResult.GetValue(threads),
    };
    SpanNettyEchoHost server;
    try
    {
        server = await SpanNettyEchoHost.StartAsync(options);
    }
    catch (Exception error) when (error is ArgumentException or System.Net.Sockets.SocketException or DllNotFoundException or AggregateException)
    {
        Console.Error.WriteLine($"cannot start: {error.GetBaseException().Message}");
        return 1;
    }

    await using var _ = server;
    if (parseResult.GetValue(perf))
    {
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"port {server.Url.Port}"));
        while (await Console.In.ReadLineAsync(cancellation) is { } command)
        {
            if (command == "gc")
            {
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"gc {GC.CollectionCount(0)} {GC.CollectionCount(1)} {GC.CollectionCount(2)} {GC.GetTotalAllocatedBytes(precise: true)}"));
            }
        }

        return 0;
    }

    Console.WriteLine($"listening on {server.Url}");
    try
    {
        await Task.Delay(Timeout.Infinite, cancellation); // Ctrl+C and SIGTERM cancel
    }
    catch (OperationCanceledException)
    {
    }

    Console.WriteLine("stopped");
    return 0;
});

return await root.Parse(args).InvokeAsync();
