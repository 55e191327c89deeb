export default function Page() {
  return <h1>rules-page</h1>;
}
