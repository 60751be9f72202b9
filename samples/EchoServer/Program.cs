using System.CommandLine;
using System.Net;
using System.Runtime.InteropServices;
using WebSocketCodec.Samples.EchoServer;

var host = new Option<string>("--host") { DefaultValueFactory = _ => "127.0.0.1", Description = "Address to listen on." };
var port = new Option<int>("--port") { DefaultValueFactory = _ => 8080, Description = "Port to listen on (0: any free port)." };
var root = new RootCommand("WebSocketCodec echo server: echoes every websocket message sent to /echo.") { host, port };
root.SetAction(async (parseResult, cancellation) =>
{
    using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellation);
    using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, context =>
    {
        context.Cancel = true;
        stop.Cancel();
    });

    await using var server = EchoServerHost.Start(new IPEndPoint(IPAddress.Parse(parseResult.GetValue(host)!), parseResult.GetValue(port)));
    Console.WriteLine($"listening on {server.Url}");
    try
    {
        await Task.Delay(Timeout.Infinite, stop.Token);
    }
    catch (OperationCanceledException)
    {
    }

    Console.WriteLine("stopped");
    return 0;
});

return await root.Parse(args).InvokeAsync();
