#include "dashboard/server.hpp"

#include <arpa/inet.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/text.hpp"
#include "dashboard/compression.hpp"
#include "dashboard/static_files.hpp"

namespace optimist::dashboard {

namespace {

constexpr std::size_t kServerThreads = 64;  // connections served at once (idle keep-alive ones included)

// The page loads nothing from elsewhere and runs no inline script. 'unsafe-inline' styles:
// the chart library positions its tooltips with style attributes.
constexpr const char* kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The host part of a Host header: "127.0.0.1:8080" -> "127.0.0.1", "[::1]:8080" -> "::1".
std::string host_part(const std::string& header) {
  if (!header.empty() && header.front() == '[') {
    const auto close = header.find(']');
    return close == std::string::npos ? header : header.substr(1, close - 1);
  }
  return header.substr(0, header.find(':'));
}

// Sends `body` as a sized content provider: cpp-httplib then leaves it uncompressed. (It would
// otherwise brotli-compress text at its slowest setting: 5 s for the chart library, on a
// connection where compression saves nothing.)
void send(httplib::Response& res, std::string body, const std::string& content_type) {
  auto shared = std::make_shared<const std::string>(std::move(body));
  res.set_content_provider(shared->size(), content_type.c_str(),
                           [shared](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                             return sink.write(shared->data() + offset, std::min(length, shared->size() - offset));
                           });
}

// Bodies this small gain nothing from compression (the page's steady polls are ~1 KB).
constexpr std::size_t kCompressFrom = 1024;

// Compresses an API answer when the client takes gzip, at zlib's fastest level (2.4x smaller for a
// page of 5,000 trials, in ~22 ms); says so either way (Vary), so that a cache never hands a
// compressed body to a client that did not ask for one.
void encode_answer(const httplib::Request& req, httplib::Response& res, std::string& body) {
  res.set_header("Vary", "Accept-Encoding");
  if (body.size() < kCompressFrom || !accepts_gzip(req.get_header_value("Accept-Encoding"))) return;
  body = gzip(body, 1);
  res.set_header("Content-Encoding", "gzip");
}

// A static file's version, for revalidation (If-None-Match): its size and modification time.
std::string file_version(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const auto time = std::filesystem::last_write_time(path, ec);
  if (ec) return "";
  char text[48];
  std::snprintf(text, sizeof text, "%jx-%jx", static_cast<std::uintmax_t>(size),
                static_cast<std::uintmax_t>(time.time_since_epoch().count()));
  return text;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A connection in memory: reads the given request bytes, collects the response bytes.
class MemoryStream final : public httplib::Stream {
 public:
  explicit MemoryStream(const std::string& input) : input_(input) {}
  bool is_readable() const override { return true; }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    const std::size_t n = std::min(size, input_.size() - position_);
    std::copy_n(input_.data() + position_, n, ptr);
    position_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    output_.append(ptr, size);
    return static_cast<ssize_t>(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 50000;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 8080;
  }
  socket_t socket() const override { return INVALID_SOCKET; }
  const std::string& output() const { return output_; }

 private:
  const std::string& input_;
  std::size_t position_ = 0;
  std::string output_;
};

// httplib's server with its request processing reachable for one in-memory connection.
class HttpServer final : public httplib::Server {
 public:
  std::string answer_bytes(const std::string& request) {
    MemoryStream stream(request);
    bool closed = false;
    process_request(stream, /*close_connection=*/true, closed, [](httplib::Request&) {});
    return stream.output();
  }
};

}  // namespace

struct Server::Impl {
  Impl(StudySource& source, ServerOptions opts) : options(std::move(opts)), api(source, options.api) {}

  ServerOptions options;
  Api api;
  HttpServer http;
  std::atomic<bool> serving{false}, stopping{false};
  // The page's files compressed, by path, with the version they were compressed from: the chart
  // library takes ~30 ms to compress, once.
  std::mutex compressed_mutex;
  std::map<std::string, std::pair<std::string, std::string>> compressed_files;

  void setup();
  void answer_file(const httplib::Request& req, httplib::Response& res, const std::filesystem::path& file);
  void answer(const httplib::Request& req, httplib::Response& res);
  httplib::Server::HandlerResponse screen(const httplib::Request& req, httplib::Response& res) const;
};

bool Server::is_loopback(const std::string& host) {
  const std::string h = lowercase(host);
  if (h == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, h.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, h.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

// Refuses what a read-only local dashboard never answers, before any handler runs.
httplib::Server::HandlerResponse Server::Impl::screen(const httplib::Request& req, httplib::Response& res) const {
  using R = httplib::Server::HandlerResponse;
  auto refuse = [&](int status, const std::string& why) {
    res.status = status;
    res.set_content(json_text(nlohmann::json{{"error", why}}), "application/json");
    return R::Handled;
  };
  // On a loopback address, a Host header naming another machine is a web page's DNS rebinding
  // attempt to read the studies from the user's browser.
  if (is_loopback(options.host)) {
    const std::string host = host_part(req.get_header_value("Host"));
    if (!is_loopback(host))
      return refuse(403, "Host '" + host + "' refused: this dashboard answers only to localhost addresses");
  }
  if (req.method != "GET" && req.method != "HEAD") {
    res.set_header("Allow", "GET, HEAD");
    return refuse(405, "the dashboard is read-only: " + req.method + " " + req.path + " is not allowed");
  }
  // cpp-httplib applies its payload limit to the bodies of POST and PUT only: a GET with a 300 MB
  // body was answered 200 and left the server 225 MB larger (stop 67's probe). No GET has a body:
  // refused, and the connection closed rather than its body read.
  const std::string length = req.get_header_value("Content-Length");
  if ((!length.empty() && length != "0") || req.has_header("Transfer-Encoding")) {
    res.set_header("Connection", "close");
    return refuse(413, "the dashboard takes no request body (" +
                           (length.empty() ? "Transfer-Encoding: " + req.get_header_value("Transfer-Encoding")
                                           : "Content-Length: " + length) + ")");
  }
  return R::Unhandled;
}

void Server::Impl::answer(const httplib::Request& req, httplib::Response& res) {
  const auto start = std::chrono::steady_clock::now();
  if (req.path.rfind("/api/", 0) == 0) {
    std::map<std::string, std::string> query;
    std::string repeated;  // `?study=a&study=b` took the last one silently
    for (const auto& [key, value] : req.params)
      if (!query.emplace(key, value).second) repeated = key;
    ApiResponse r = repeated.empty() ? api.get(req.path, query)
                                     : ApiResponse{400, nlohmann::json{{"error", "'" + repeated + "' is given twice"}}.dump(
                                                            -1, ' ', false, nlohmann::json::error_handler_t::replace)};
    res.status = r.status;
    encode_answer(req, res, r.body);
    send(res, std::move(r.body), "application/json");
    res.set_header("Cache-Control", "no-store");
  } else if (const auto file = resolve_static_file(options.static_dir, req.path)) {
    answer_file(req, res, *file);
  } else {
    res.status = 404;
    res.set_content("not found\n", "text/plain; charset=utf-8");
  }
  // Browsers expose this to the page (PerformanceResourceTiming.serverTiming): the browser test
  // reads the server's own time for each request.
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  char timing[64];
  std::snprintf(timing, sizeof timing, "app;dur=%.3f", ms);
  res.set_header("Server-Timing", timing);
}

// "no-cache": the browser asks again at each load, and an unchanged file is answered 304 without
// its body (it was sent whole each time: 1 MB of chart library per page load).
void Server::Impl::answer_file(const httplib::Request& req, httplib::Response& res, const std::filesystem::path& file) {
  res.set_header("Cache-Control", "no-cache");
  res.set_header("Vary", "Accept-Encoding");
  const std::string version = file_version(file);
  if (!version.empty() && req.get_header_value("If-None-Match").find('"' + version) != std::string::npos) {
    res.status = 304;
    return;
  }
  std::string body = read_file(file);
  const bool compress = body.size() >= kCompressFrom && accepts_gzip(req.get_header_value("Accept-Encoding"));
  if (compress) {
    std::lock_guard lock(compressed_mutex);
    auto& [from, packed] = compressed_files[file.string()];
    if (version.empty() || from != version) {
      packed = gzip(body, 9);
      from = version;
    }
    body = packed;
    res.set_header("Content-Encoding", "gzip");
  }
  if (!version.empty()) res.set_header("ETag", '"' + version + (compress ? "-gzip\"" : "\""));
  send(res, std::move(body), content_type_for(file));
}

void Server::Impl::setup() {
  http.set_default_headers({{"Content-Security-Policy", kContentSecurityPolicy},
                            {"X-Content-Type-Options", "nosniff"},
                            {"X-Frame-Options", "DENY"},
                            {"Referrer-Policy", "no-referrer"}});
  http.set_payload_max_length(64 * 1024);  // requests carry no body
  // cpp-httplib sets SO_REUSEPORT: a second dashboard on a port in use bound it too, without an
  // error, and the kernel split the requests between the two (a page flipping between sources).
  // SO_REUSEADDR alone still allows a restart on the port while old connections linger.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // A browser keeps up to 6 idle keep-alive connections per tab; each holds a thread until it
  // times out, so cpp-httplib's 8 threads left two tabs (or 8 stalled clients) blocking every
  // other request for seconds.
  http.new_task_queue = [] { return new httplib::ThreadPool(kServerThreads); };
  // One request per connection. A keep-alive connection holds one of those threads while idle
  // (70 idle connections held a request up 4.7 s, stop 67's probe), and after a refused GET with
  // a body the next "request" was read from that body, one line of any length (300 MB in memory).
  // Closing costs a TCP handshake per request: ~0.1 ms on the loopback, a round trip per poll
  // request over a network.
  http.set_keep_alive_max_count(1);
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) { return screen(req, res); });
  http.Get(".*", [this](const httplib::Request& req, httplib::Response& res) { answer(req, res); });
  if (options.log_requests) {
    http.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      std::fprintf(stderr, "optimist dashboard: %s %s %d %zu B %s\n", printable(req.method).c_str(),
                   printable(req.target).c_str(), res.status,
                   res.body.empty() ? res.content_length_ : res.body.size(), res.get_header_value("Server-Timing").c_str());
    });
  }
}

Server::Server(StudySource& source, ServerOptions options) : impl_(std::make_unique<Impl>(source, std::move(options))) {
  impl_->setup();
}

Server::~Server() = default;

// Why binding failed: the system's word for the usual causes; anything else (getaddrinfo failed,
// errno unset) means the host is not an address of this machine.
std::string bind_failure(const std::string& address) {
  const int e = errno;
  const std::string why = (e == EADDRINUSE || e == EACCES || e == EADDRNOTAVAIL)
                              ? std::strerror(e)
                              : "not an address of this machine (e.g. 127.0.0.1, ::1, 0.0.0.0)";
  return "cannot listen on " + address + ": " + why;
}

int Server::bind() {
  const auto& o = impl_->options;
  if (o.port < 0 || o.port > 65535)
    throw InvalidArgument("--port must be between 0 and 65535, got " + std::to_string(o.port));
  errno = 0;
  if (o.port == 0) {
    const int port = impl_->http.bind_to_any_port(o.host);
    if (port < 0) throw InvalidArgument(bind_failure(o.host));
    return port;
  }
  if (!impl_->http.bind_to_port(o.host, o.port)) {
    std::string message = bind_failure(o.host + ":" + std::to_string(o.port));
    if (errno == EADDRINUSE || errno == EACCES) message += " (choose another --port, or --port 0 for any free one)";
    throw InvalidArgument(message);
  }
  return o.port;
}

std::string Server::answer_raw(const std::string& request) { return impl_->http.answer_bytes(request); }

void Server::serve() {
  impl_->serving = true;
  if (!impl_->stopping) impl_->http.listen_after_bind();
  impl_->serving = false;
}

void Server::stop() {
  impl_->stopping = true;
  // httplib ignores a stop() that comes before its loop marked itself running.
  while (impl_->serving && !impl_->http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->http.stop();
}

}  // namespace optimist::dashboard
