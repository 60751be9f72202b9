namespace WebSocketCodec.Testing;

/// <summary>
/// Finds Chromium, installing Debian's <c>chromium</c> package when it is missing (<see cref="DebianPackage"/>). Where
/// it cannot be installed because the machine cannot or the package source is unreachable, <see cref="SkipReason"/>
/// says why and the browser tests report themselves skipped with it; any other install failure throws, so every
/// browser test fails with apt-get's output.
/// </summary>
public sealed class ChromiumFixture : IAsyncLifetime
{
    private static readonly string[] Names = ["chromium", "chromium-browser", "google-chrome"];

    public string? Executable { get; private set; }

    public string? SkipReason { get; private set; }

    public async Task InitializeAsync()
    {
        SkipReason = await DebianPackage.EnsureAsync("chromium", Find);
        Executable = Find();
    }

    public Task DisposeAsync() => Task.CompletedTask;

    private static string? Find() => Names.Select(NodeFixture.Which).FirstOrDefault(path => path is not null);
}
