@echo off
rem mcp-stdio launcher for Windows: finds a JDK 21+, builds the jar on first use, runs it.
rem stdout is the JSON-RPC wire: everything the launcher, Maven or the JVM says goes to stderr.
setlocal EnableDelayedExpansion
set "HERE=%~dp0"
set "JAR=%HERE%target\mcp-stdio.jar"
set "JAVA="
if defined MCP_STDIO_JAVA_HOME set "JAVA=%MCP_STDIO_JAVA_HOME%\bin\java.exe"
if not defined JAVA if defined JAVA_HOME set "JAVA=%JAVA_HOME%\bin\java.exe"
if not defined JAVA (
  for /d %%D in ("%ProgramFiles%\Eclipse Adoptium\jdk-2*" "%ProgramFiles%\Java\jdk-2*" "%ProgramFiles%\Microsoft\jdk-2*" "%ProgramFiles%\Zulu\zulu-2*" "%ProgramFiles%\Amazon Corretto\jdk2*") do (
    if exist "%%~D\bin\java.exe" set "JAVA=%%~D\bin\java.exe"
  )
)
if not defined JAVA set "JAVA=java"
if not exist "%JAR%" (
  echo mcp-stdio: building %JAR% ^(first use; about a minute^) 1>&2
  pushd "%HERE%"
  call mvn -q -B -DskipTests package 1>&2
  if errorlevel 1 (
    popd
    echo mcp-stdio: build failed; Maven 3.6.3+ and a JDK 21+ are needed on first use 1>&2
    exit /b 1
  )
  popd
)
rem The relay's heap starts at 8 MiB, half young, grows to at most 40 MiB and never shrinks back; serve's starts small with a 512 MiB ceiling.
rem Each role has its own class-data archive, made with the heap flags that role runs with.
set "HEAP=-Xms8m -Xmx40m -XX:NewRatio=1 -XX:MaxHeapFreeRatio=100"
set "ROLE="
rem The relay lets C2 compile only the loops over every byte of a message; C1 compiles the rest (see the mcp-stdio script).
rem Serve keeps C2 throughout. Quoted, so that no wildcard in them is ever expanded.
set JIT="-XX:CompileCommand=quiet" "-XX:CompileCommand=MaxNodeLimit,*.*,50" "-XX:CompileCommand=MaxNodeLimit,dev/mcpstdio/wire/*.*,80000" "-XX:CompileCommand=MaxNodeLimit,dev/mcpstdio/jsonrpc/StreamingScanner*.*,80000" "-XX:CompileCommand=MaxNodeLimit,dev/mcpstdio/jsonrpc/JsonScanner*.*,80000" "-XX:CompileCommand=MaxNodeLimit,dev/mcpstdio/stdio/StdoutWire*.*,80000"
if /i "%~1"=="serve" (
  set "HEAP=-Xms16m -Xmx512m -XX:NewRatio=2 -XX:MaxHeapFreeRatio=40"
  set "ROLE=-serve"
  set "JIT="
)
"%JAVA%" -Xlog:disable -Xlog:all=warning:stderr -XX:+DisplayVMOutputToStderr -XX:+UseSerialGC -Xss512k %HEAP% -XX:MinHeapFreeRatio=10 -XX:MaxInlineLevel=6 -XX:InlineSmallCode=1000 -XX:FreqInlineSize=100 %JIT% "-XX:SharedArchiveFile=%HERE%target\mcp-stdio%ROLE%.jsa" -XX:+AutoCreateSharedArchive %MCP_STDIO_JAVA_OPTS% -Xlog:all=off:stdout -jar "%JAR%" %*
exit /b %ERRORLEVEL%
