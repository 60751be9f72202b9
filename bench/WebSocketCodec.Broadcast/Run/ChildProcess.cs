using System.Diagnostics;
using System.Text;
using System.Threading.Channels;

namespace WebSocketCodec.Broadcast.Run;

/// <summary>One process of this tool started by the driver (its hidden <c>serve</c> or <c>client</c> command): commands
/// go to its stdin, its stdout lines are read one at a time, its stderr is kept for error messages.</summary>
internal sealed class ChildProcess : IDisposable
{
    private readonly Process _process;
    private readonly string _name;
    private readonly Channel<string> _lines = Channel.CreateUnbounded<string>(new UnboundedChannelOptions { SingleReader = true });
    private readonly StringBuilder _errors = new();

    private ChildProcess(Process process, string name)
    {
        _process = process;
        _name = name;
        _process.OutputDataReceived += (_, e) =>
        {
            if (e.Data is null)
            {
                _lines.Writer.TryComplete();
            }
            else
            {
                _lines.Writer.TryWrite(e.Data);
            }
        };
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
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
    }

    public int Id => _process.Id;

    /// <summary>Starts this tool's assembly with <paramref name="arguments"/> (workstation GC).</summary>
    public static ChildProcess Start(string name, params string[] arguments)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.Environment["DOTNET_gcServer"] = "0";
        start.ArgumentList.Add(typeof(ChildProcess).Assembly.Location);
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return new ChildProcess(Process.Start(start)!, name);
    }

    public async Task WriteAsync(string text)
    {
        await _process.StandardInput.WriteAsync(text);
        await _process.StandardInput.FlushAsync();
    }

    /// <summary>The next stdout line.</summary>
    /// <exception cref="TimeoutException">None within <paramref name="timeout"/>.</exception>
    /// <exception cref="InvalidOperationException">The process ended.</exception>
    public async Task<string> ReadLineAsync(TimeSpan timeout, CancellationToken cancellationToken)
    {
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        deadline.CancelAfter(timeout);
        try
        {
            if (await _lines.Reader.WaitToReadAsync(deadline.Token) && _lines.Reader.TryRead(out string? line))
            {
                return line;
            }
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw new TimeoutException($"The {_name} printed nothing within {timeout.TotalSeconds} s. {Errors}");
        }

        await _process.WaitForExitAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(5), CancellationToken.None);
        throw new InvalidOperationException($"The {_name} exited ({_process.ExitCode}). {Errors}");
    }

    /// <summary>The next stdout line that starts with <paramref name="prefix"/> (others are skipped).</summary>
    public async Task<string> ReadLineAsync(string prefix, TimeSpan timeout, CancellationToken cancellationToken)
    {
        while (true)
        {
            string line = await ReadLineAsync(timeout, cancellationToken);
            if (line.StartsWith(prefix, StringComparison.Ordinal))
            {
                return line;
            }
        }
    }

    public string Errors
    {
        get
        {
            lock (_errors)
            {
                return _errors.ToString();
            }
        }
    }

    /// <summary>Ends its stdin (it exits), waits up to 20 s, then kills it.</summary>
    public void Dispose()
    {
        try
        {
            _process.StandardInput.Close();
            if (!_process.WaitForExit(TimeSpan.FromSeconds(20)))
            {
                _process.Kill(entireProcessTree: true);
                _process.WaitForExit(TimeSpan.FromSeconds(5));
            }
        }
        catch (InvalidOperationException)
        {
            // Already gone.
        }
        catch (IOException)
        {
            // Its stdin is already closed.
        }

        _process.Dispose();
    }
}
