using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;

namespace WebSocketCodec.Scale;

/// <summary>The coordinator's handle on one client process (this tool's hidden <c>client</c> command): sends it
/// commands, reads its JSON reports.</summary>
internal sealed class ClientProcess : IDisposable
{
    private readonly Process _process;
    private readonly StringBuilder _errors = new();

    private ClientProcess(Process process)
    {
        _process = process;
        _process.ErrorDataReceived += (_, e) =>
        {
            lock (_errors)
            {
                if (e.Data is not null && _errors.Length < 8192)
                {
                    _errors.AppendLine(e.Data);
                }
            }
        };
        _process.BeginErrorReadLine();
    }

    public static ClientProcess Start(ClientSettings settings)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.Environment["DOTNET_gcServer"] = "0";
        string F(double value) => value.ToString(CultureInfo.InvariantCulture);
        foreach (string argument in new[]
        {
            typeof(ClientProcess).Assembly.Location, "client",
            "--port", F(settings.Port), "--websockets", F(settings.WebSockets),
            "--sources", string.Join(',', settings.Sources), "--seed", F(settings.Seed),
            "--min-interval", F(settings.MinInterval.TotalSeconds), "--max-interval", F(settings.MaxInterval.TotalSeconds),
            "--concurrency", F(settings.Concurrency), "--handshake-timeout", F(settings.HandshakeTimeout.TotalSeconds),
        })
        {
            start.ArgumentList.Add(argument);
        }

        return new ClientProcess(Process.Start(start)!);
    }

    public async Task SendAsync(string command)
    {
        await _process.StandardInput.WriteLineAsync(command);
        await _process.StandardInput.FlushAsync();
    }

    /// <summary>Waits for the report named <paramref name="name"/> (lines that are not reports are passed to the
    /// error output).</summary>
    public async Task<ClientReport> ReportAsync(string name, TimeSpan timeout, CancellationToken cancellationToken)
    {
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(timeout);
        while (true)
        {
            string? line;
            try
            {
                line = await _process.StandardOutput.ReadLineAsync(deadline.Token);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                throw new TimeoutException($"A client process sent no '{name}' report within {timeout}. {Errors}");
            }

            if (line is null)
            {
                await _process.WaitForExitAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(5), CancellationToken.None);
                throw new InvalidOperationException($"A client process exited ({_process.ExitCode}) before its '{name}' report. {Errors}");
            }

            if (line.StartsWith('{'))
            {
                ClientReport report = JsonSerializer.Deserialize<ClientReport>(line, ClientMode.Json)!;
                if (report.Event == name)
                {
                    return report;
                }
            }
            else
            {
                await Console.Error.WriteLineAsync("client: " + line);
            }
        }
    }

    private string Errors
    {
        get
        {
            lock (_errors)
            {
                return _errors.ToString();
            }
        }
    }

    public void Dispose()
    {
        try
        {
            _process.StandardInput.Close();
            if (!_process.WaitForExit(TimeSpan.FromSeconds(20)))
            {
                _process.Kill(entireProcessTree: true);
            }
        }
        catch (InvalidOperationException)
        {
            // Already gone.
        }

        _process.Dispose();
    }
}
